import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aws, Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IConfigurationSet } from 'aws-cdk-lib/aws-ses';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { type ItemFamily, itemFamilyIndex, leadingKeyPattern } from '../shared/adapters/keys.js';
import type { SecretName } from '../shared/config.js';
import type { Needs } from '../shared/http/route-table.js';
import { acknowledgeFinding } from './acknowledge-finding.js';
import { bundleAliases, esbuildOptions } from './bundling.js';
import { extractedBinding, type LambdaArchitecture, nativeBindingHook } from './native-binding.js';

/** What a role may do to the items of a family it reads (`bindTable`). */
const tableReads = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
/** And of a family it also writes. */
const tableWrites = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/** Route entries are relative to the project root, one level above this folder. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export interface ServiceFunctionProps {
  /** The handler module, relative to the project root (a route's `entry`). */
  entry: string;
  /**
   * The stage's name (`<service>-<stage>`), its SERVICE_NAME: the `service` of its log lines and
   * the namespace of its embedded metrics, whichever stack holds it.
   */
  serviceName: string;
  description: string;
  /** @default Duration.seconds(10) */
  timeout?: Duration;
  /** Memory, and with it CPU (a full vCPU at 1,769 MB). @default 512 */
  memorySize?: number;
  /** @default logs.RetentionDays.ONE_MONTH */
  logRetention?: logs.RetentionDays;
  /** @default none (the account's unreserved pool) */
  reservedConcurrentExecutions?: number;
  /** @default lambda.Architecture.ARM_64 */
  architecture?: lambda.Architecture;
  /**
   * Adds the AWS Parameters and Secrets Lambda Extension, through which `shared/config.ts`
   * reads secrets; `bindSecret` refuses a function built without it.
   * @default false
   */
  readsSecrets?: boolean;
  environment?: Record<string, string>;
}

/** SES sending, scoped to one sender and the stage's configuration set. */
export interface EmailSender {
  /** The From address (`EMAIL_FROM`). */
  from: string;
  /** What every email is sent through (`SES_CONFIGURATION_SET`): its events feed the alarms. */
  configurationSet: IConfigurationSet;
}

export interface SmsSettings {
  senderId: string | undefined;
  allowedCountries: string[];
  /** Texts the whole stage may send per hour. */
  maxPerHour: number;
  /** The last share of it, in percent, kept from generic codes. */
  reservedPercent: number;
  /** One account's generic codes: distinct numbers an hour, texts a day. */
  generic: { numbersPerHour: number; perDay: number };
}

/** What access tokens say about who issued them and for whom (iss and aud). */
export interface TokenSettings {
  issuer: string;
  audience: string;
}

/** The EventBridge Scheduler pieces the delivery worker uses for its retry ladder. */
export interface DeliveryScheduler {
  /** The group's fixed name (the stage's), which the grant's resource names. */
  groupName: string;
  /** The role schedules assume to send to the delivery queue. */
  role: iam.IRole;
  deliveryQueue: IQueue;
}

/** Everything a function may be bound to; `bindNeeds` picks what a route's `needs` lists. */
export interface ServiceResources {
  table: ITable;
  email: EmailSender;
  sms: SmsSettings;
  deliveryQueue: IQueue;
  inboundQueue: IQueue;
  accountCodeQueue: IQueue;
  scheduler: DeliveryScheduler;
  secrets: Partial<Record<SecretName, ISecret>>;
  tokens: TokenSettings;
}

/**
 * Every Lambda of the service: ARM64 (unless told otherwise), Node.js 24, an ESM bundle built
 * locally by esbuild (no Docker), source maps, X-Ray active tracing, its own log group with a
 * retention, the stage's name as SERVICE_NAME (the `service` of its log lines and the namespace
 * of its embedded metrics), and its own role that may write only to that log group (no AWS
 * managed policy). Each code or configuration change publishes a version, and callers reach the
 * function through its `live` alias only, which a deploy moves to the new version step by step
 * (CodeDeploy, infra/area-stack.ts).
 * The bind methods grant a permission and set the environment that goes with it in one call, so
 * the two cannot drift apart.
 */
export class ServiceFunction extends NodejsFunction {
  private readonly readsSecrets: boolean;
  /** What API Gateway, Function URLs, queues and schedules invoke: never `$LATEST`. */
  readonly live: lambda.Alias;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });
    // The role NodejsFunction would make carries AWSLambdaBasicExecutionRole: logs anywhere.
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.entry}: its own log group and what its routes need`,
    });
    logGroup.grantWrite(role);
    const architecture = props.architecture ?? lambda.Architecture.ARM_64;
    const nativeArchitecture: LambdaArchitecture =
      architecture.name === lambda.Architecture.X86_64.name ? 'x86_64' : 'arm64';
    super(scope, id, {
      entry: path.join(projectRoot, props.entry),
      handler: 'handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture,
      tracing: lambda.Tracing.ACTIVE,
      role,
      timeout: props.timeout ?? Duration.seconds(10),
      memorySize: props.memorySize ?? 512,
      logGroup,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      paramsAndSecrets: props.readsSecrets
        ? lambda.ParamsAndSecretsLayerVersion.fromVersion(
            lambda.ParamsAndSecretsVersions.V1_0_103,
            {
              logLevel: lambda.ParamsAndSecretsLogLevel.WARN,
              // How long the extension serves a value before it asks Secrets Manager again: the
              // most it allows. A rotated secret reaches the function within this and the
              // function's own minute (shared/adapters/secrets.ts).
              secretsManagerTtl: Duration.minutes(5),
            },
          )
        : undefined,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        SERVICE_NAME: props.serviceName,
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: esbuildOptions.target,
        minify: esbuildOptions.minify,
        sourceMap: esbuildOptions.sourcemap,
        sourcesContent: esbuildOptions.sourcesContent,
        mainFields: esbuildOptions.mainFields,
        banner: esbuildOptions.banner.js,
        externalModules: esbuildOptions.external,
        esbuildArgs: Object.fromEntries(
          Object.entries(bundleAliases(nativeArchitecture)).map(([name, target]) => [
            `--alias:${name}`,
            target,
          ]),
        ),
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          // The function's architecture's Argon2 binary, if its bundle requires one.
          afterBundling: (_inputDir, outputDir) => [
            nativeBindingHook(nativeArchitecture, outputDir, extractedBinding(nativeArchitecture)),
          ],
        },
        bundleAwsSDK: true,
        forceDockerBundling: false,
      },
    });
    this.readsSecrets = props.readsSecrets ?? false;
    this.live = new lambda.Alias(this, 'Live', { aliasName: 'live', version: this.currentVersion });
    acknowledgeFinding(
      role,
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so their resource is always *.',
    );
  }

  /** Grants and configures exactly what `needs` lists, down to the table's item families. */
  bindNeeds(needs: Needs, resources: ServiceResources): this {
    this.bindTable(resources.table, needs.items ?? [], needs.reads ?? []);
    if (needs.email) this.bindEmail(resources.email);
    if (needs.sms) this.bindSms(resources.sms);
    else if (needs.smsAllowList) this.bindSmsAllowList(resources.sms);
    if (needs.deliveryQueue) this.bindDeliveryQueue(resources.deliveryQueue);
    if (needs.inboundQueue) this.bindInboundQueue(resources.inboundQueue);
    if (needs.accountCodeQueue) this.bindAccountCodeQueue(resources.accountCodeQueue);
    if (needs.scheduler) this.bindScheduler(resources.scheduler);
    for (const name of needs.secrets ?? []) {
      const secret = resources.secrets[name];
      if (secret === undefined)
        throw new Error(`No secret ${name} was created for ${this.node.id}`);
      this.bindSecret(name, secret);
    }
    const families = [...(needs.items ?? []), ...(needs.reads ?? [])];
    if (families.includes('accessTokenKeys')) this.bindTokens(resources.tokens);
    return this;
  }

  /**
   * Item reads and writes (transactions included) on the partitions of `families` only, and
   * reads alone (GetItem, BatchGetItem, Query) on those of `readOnly`: an IAM
   * `dynamodb:LeadingKeys` condition on the table, and on each index whose partitions a family
   * lives in, Query on those partitions. No Scan (no key, so no condition could limit it) and no
   * table management: no operation needs them.
   */
  bindTable(
    table: ITable,
    families: readonly ItemFamily[],
    readOnly: readonly ItemFamily[] = [],
  ): this {
    const statements = new Map<
      string,
      { actions: string[]; resource: string; patterns: string[] }
    >();
    const grant = (family: ItemFamily, tableActions: string[]) => {
      const index = itemFamilyIndex(family);
      // An index is only ever queried, whether its family is written or only read.
      const [actions, resource] =
        index === undefined
          ? [tableActions, table.tableArn]
          : [['dynamodb:Query'], `${table.tableArn}/index/${index}`];
      const key = `${resource} ${actions.join()}`;
      const statement = statements.get(key) ?? { actions, resource, patterns: [] };
      statement.patterns.push(leadingKeyPattern(family));
      statements.set(key, statement);
    };
    for (const family of families) grant(family, [...tableReads, ...tableWrites]);
    for (const family of readOnly) grant(family, tableReads);
    for (const { actions, resource, patterns } of statements.values()) {
      this.addToRolePolicy(
        new iam.PolicyStatement({
          actions,
          resources: [resource],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } },
        }),
      );
    }
    this.addEnvironment('TABLE_NAME', table.tableName);
    return this;
  }

  /**
   * SES sending, only from the configured address (whether its address or domain is verified),
   * and only through the stage's configuration set, which SES authorises as a resource of the
   * send too.
   */
  bindEmail(sender: EmailSender): this {
    const stack = Stack.of(this);
    const domain = sender.from.slice(sender.from.lastIndexOf('@') + 1);
    const { configurationSetName } = sender.configurationSet;
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [
          ...[sender.from, domain].map((identity) =>
            stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity }),
          ),
          stack.formatArn({
            service: 'ses',
            resource: 'configuration-set',
            resourceName: configurationSetName,
          }),
        ],
        conditions: { StringEquals: { 'ses:FromAddress': sender.from } },
      }),
    );
    this.addEnvironment('EMAIL_FROM', sender.from);
    this.addEnvironment('SES_CONFIGURATION_SET', configurationSetName);
    return this;
  }

  /**
   * SNS Publish to phone numbers only: `notResources` on every topic ARN leaves exactly the
   * direct-to-phone publish, so this function can never post to a topic.
   */
  bindSms(settings: SmsSettings): this {
    this.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sns:Publish'], notResources: ['arn:aws:sns:*:*:*'] }),
    );
    if (settings.senderId !== undefined) this.addEnvironment('SMS_SENDER_ID', settings.senderId);
    this.addEnvironment('SMS_MAX_PER_HOUR', String(settings.maxPerHour));
    this.addEnvironment('SMS_RESERVED_PERCENT', String(settings.reservedPercent));
    this.addEnvironment('GENERIC_SMS_NUMBERS_PER_HOUR', String(settings.generic.numbersPerHour));
    this.addEnvironment('GENERIC_SMS_PER_DAY', String(settings.generic.perDay));
    return this.bindSmsAllowList(settings);
  }

  /** The SMS country allow-list alone: checks a number without any right to text it. */
  bindSmsAllowList(settings: SmsSettings): this {
    this.addEnvironment('SMS_ALLOWED_COUNTRIES', settings.allowedCountries.join(','));
    return this;
  }

  /** Who access tokens are from and for: what signing and checking them needs beside the keys. */
  bindTokens(tokens: TokenSettings): this {
    this.addEnvironment('JWT_ISSUER', tokens.issuer);
    this.addEnvironment('JWT_AUDIENCE', tokens.audience);
    return this;
  }

  bindDeliveryQueue(queue: IQueue): this {
    this.allowSend(queue);
    this.addEnvironment('DELIVERY_QUEUE_URL', queue.queueUrl);
    return this;
  }

  bindInboundQueue(queue: IQueue): this {
    this.allowSend(queue);
    this.addEnvironment('INBOUND_QUEUE_URL', queue.queueUrl);
    return this;
  }

  bindAccountCodeQueue(queue: IQueue): this {
    this.allowSend(queue);
    this.addEnvironment('ACCOUNT_CODE_QUEUE_URL', queue.queueUrl);
    return this;
  }

  /**
   * Creating one-time schedules in the delivery group only (they delete themselves after firing,
   * so nothing here deletes one), and passing only the scheduler's role, only to EventBridge
   * Scheduler.
   */
  bindScheduler(scheduler: DeliveryScheduler): this {
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['scheduler:CreateSchedule'],
        // Pseudo parameters rather than the stack's region and account: the same ARN (and the
        // same acknowledged finding below) whether or not the stack has an environment.
        resources: [
          `arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${scheduler.groupName}/*`,
        ],
      }),
    );
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [scheduler.role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    acknowledgeFinding(
      this.role!,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${scheduler.groupName}/*]`,
      "One schedule per delivery attempt, named at run time: the grant is confined to the stage's delivery schedule group.",
    );
    this.addEnvironment('SCHEDULER_GROUP_NAME', scheduler.groupName);
    this.addEnvironment('SCHEDULER_ROLE_ARN', scheduler.role.roleArn);
    this.addEnvironment('DELIVERY_QUEUE_ARN', scheduler.deliveryQueue.queueArn);
    return this;
  }

  /** The secret's ARN (never its value) and the right to read it through the extension. */
  bindSecret(name: SecretName, secret: ISecret): this {
    if (!this.readsSecrets) {
      throw new Error(`${this.node.id} reads ${name} but was built without readsSecrets: true`);
    }
    secret.grantRead(this);
    this.addEnvironment(`${name}_SECRET_ARN`, secret.secretArn);
    return this;
  }

  /** SendMessage only (it covers SendMessageBatch); the queue URL comes from the environment. */
  private allowSend(queue: IQueue): void {
    this.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
    );
  }
}
