import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { SecretName } from '../shared/config.js';
import type { Needs } from '../shared/http/routes.js';
import { esbuildOptions } from './bundling.js';

/** Route entries are relative to the project root, one level above this folder. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export interface ServiceFunctionProps {
  /** The handler module, relative to the project root (a route's `entry`). */
  entry: string;
  description: string;
  /** @default Duration.seconds(10) */
  timeout?: Duration;
  /** Memory, and with it CPU (a full vCPU at 1,769 MB). @default 512 */
  memorySize?: number;
  /** @default logs.RetentionDays.ONE_MONTH */
  logRetention?: logs.RetentionDays;
  /** @default none (the account's unreserved pool) */
  reservedConcurrentExecutions?: number;
  /**
   * Adds the AWS Parameters and Secrets Lambda Extension, through which `shared/config.ts`
   * reads secrets; `bindSecret` refuses a function built without it.
   * @default false
   */
  readsSecrets?: boolean;
  environment?: Record<string, string>;
}

/** SES sending, scoped to one sender. */
export interface EmailSender {
  /** The From address (`EMAIL_FROM`). */
  from: string;
}

export interface SmsSettings {
  senderId: string | undefined;
  allowedCountries: string[];
}

/** The EventBridge Scheduler pieces the delivery worker uses for its retry ladder. */
export interface DeliveryScheduler {
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
}

/**
 * Every Lambda of the service: ARM64, Node.js 22, an ESM bundle built locally by esbuild (no
 * Docker), source maps, its own log group with a retention. The bind methods grant a permission
 * and set the environment that goes with it in one call, so the two cannot drift apart.
 */
export class ServiceFunction extends NodejsFunction {
  private readonly readsSecrets: boolean;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });
    super(scope, id, {
      entry: path.join(projectRoot, props.entry),
      handler: 'handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout ?? Duration.seconds(10),
      memorySize: props.memorySize ?? 512,
      logGroup,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      paramsAndSecrets: props.readsSecrets
        ? lambda.ParamsAndSecretsLayerVersion.fromVersion(
            lambda.ParamsAndSecretsVersions.V1_0_103,
            { logLevel: lambda.ParamsAndSecretsLogLevel.WARN },
          )
        : undefined,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: {
        format: OutputFormat.ESM,
        target: esbuildOptions.target,
        minify: esbuildOptions.minify,
        sourceMap: esbuildOptions.sourcemap,
        sourcesContent: esbuildOptions.sourcesContent,
        mainFields: esbuildOptions.mainFields,
        banner: esbuildOptions.banner.js,
        bundleAwsSDK: true,
        forceDockerBundling: false,
      },
    });
    this.readsSecrets = props.readsSecrets ?? false;
  }

  /** Grants and configures exactly what `needs` lists, plus the table every function uses. */
  bindNeeds(needs: Needs, resources: ServiceResources): this {
    this.bindTable(resources.table);
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
    return this;
  }

  /**
   * Item reads and writes (transactions included), on the table and its indexes. No Scan and no
   * table management: no operation needs them.
   */
  bindTable(table: ITable): this {
    table.grant(
      this,
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:ConditionCheckItem',
    );
    this.addEnvironment('TABLE_NAME', table.tableName);
    return this;
  }

  /** SES sending, only from the configured address (whether its address or domain is verified). */
  bindEmail(sender: EmailSender): this {
    const stack = Stack.of(this);
    const domain = sender.from.slice(sender.from.lastIndexOf('@') + 1);
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [sender.from, domain].map((identity) =>
          stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity }),
        ),
        conditions: { StringEquals: { 'ses:FromAddress': sender.from } },
      }),
    );
    this.addEnvironment('EMAIL_FROM', sender.from);
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
    return this.bindSmsAllowList(settings);
  }

  /** The SMS country allow-list alone: checks a number without any right to text it. */
  bindSmsAllowList(settings: SmsSettings): this {
    if (settings.allowedCountries.length > 0) {
      this.addEnvironment('SMS_ALLOWED_COUNTRIES', settings.allowedCountries.join(','));
    }
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
   * One-time schedules in the delivery group only, and passing only the scheduler's role, only to
   * EventBridge Scheduler.
   */
  bindScheduler(scheduler: DeliveryScheduler): this {
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        resources: [
          Stack.of(this).formatArn({
            service: 'scheduler',
            resource: 'schedule',
            resourceName: `${scheduler.groupName}/*`,
          }),
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
