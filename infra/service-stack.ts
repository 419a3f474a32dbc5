import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { routes } from '../functions/routes.js';
import { tableIndexes, tableKeys, ttlAttribute } from '../shared/adapters/table-definition.js';
import { type SecretName, secretNames } from '../shared/config.js';
import { surfaceSizes, workQueueSizes } from '../shared/deployment-sizes.js';
import { inboundEventAbandonedMessage } from '../shared/domain/inbound/sweep-events.js';
import { smsCapNearMessage, smsCapReachedMessage } from '../shared/domain/otp/sms-cap.js';
import { mergedNeeds, routesByEntry } from '../shared/http/route-needs.js';
import type { ApiRoute, Route } from '../shared/http/route-table.js';
import { acknowledgeFinding } from './acknowledge-finding.js';
import { DashboardApiKey, DashboardSite } from './dashboard-site.js';
import { DeliveryScheduler } from './delivery-scheduler.js';
import { type OperatedFunction, ServiceOperations } from './operations.js';
import { type RunbookSection, withRunbook } from './runbooks.js';
import { ServiceApi } from './service-api.js';
import { ServiceFunction, type ServiceResources } from './service-function.js';
import type { ServiceSettings } from './settings.js';
import { queueOutputNames } from './stack-outputs.js';
import { WorkQueue } from './work-queue.js';

/**
 * Timeout and memory per surface, from `shared/deployment-sizes.ts` (where the local runtime reads
 * them too).
 */
const surfaceDefaults = (surface: Route['surface']) => ({
  timeout: Duration.seconds(surfaceSizes[surface].timeoutSeconds),
  memorySize: surfaceSizes[surface].memoryMb,
});

/** `functions/receivers/gateway-b-webhook.ts` → `ReceiversGatewayBWebhook`. */
export function constructIdOf(entry: string): string {
  return entry
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .split(/[/-]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

const secretIdOf = (name: SecretName): string =>
  name
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

export interface ServiceStackProps extends StackProps {
  /** The stage's settings (infra/settings.ts), read from the context once. */
  settings: ServiceSettings;
}

/**
 * The whole service, driven by the route table: one Lambda per distinct entry, placed on the
 * surface its routes name (API Gateway, Function URL, queue, schedule) and granted exactly what
 * their `needs` list.
 */
export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { settings } = props;

    const alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `${id} alarms`,
      enforceSSL: true,
    });
    if (settings.alarmEmail !== undefined) {
      alarmTopic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));
    }
    const alarmAction = new cloudwatchActions.SnsAction(alarmTopic);

    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableKeys.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableKeys.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Accounts and sessions outlive any one deployment of the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
      });
    }

    // Six times the worker's timeout (workQueueSizes says why); the local queues wait as long at most.
    const sixTimesWorkerTimeout = Duration.seconds(workQueueSizes.visibilityTimeoutSeconds);
    const queues = {
      // Messages wait up to 15 minutes on purpose (the SQS delay of an early retry).
      delivery: new WorkQueue(this, 'Delivery', {
        visibilityTimeout: sixTimesWorkerTimeout,
        maxMessageAge: Duration.minutes(30),
        alarmAction,
      }),
      // A gateway's event is acknowledged at once; its effects should follow within minutes.
      inbound: new WorkQueue(this, 'Inbound', {
        visibilityTimeout: sixTimesWorkerTimeout,
        maxMessageAge: Duration.minutes(15),
        alarmAction,
      }),
      // Also longer than the 60 s code cooldown: a code whose send failed is redelivered after
      // the cooldown, so the retry issues and sends a fresh code instead of being absorbed. A
      // code older than its queue's alarm is one a user has given up waiting for.
      accountCode: new WorkQueue(this, 'AccountCode', {
        visibilityTimeout: sixTimesWorkerTimeout,
        maxMessageAge: Duration.minutes(5),
        alarmAction,
      }),
    };
    // What `npm run redrive -- <queue>` reads to move a dead-letter queue's messages back.
    for (const [name, work] of Object.entries(queues)) {
      const outputs = queueOutputNames(name);
      new CfnOutput(this, outputs.queueArn, { value: work.queue.queueArn });
      new CfnOutput(this, outputs.deadLetterQueueArn, { value: work.deadLetterQueue.queueArn });
    }

    // Every email goes through it: SES then counts sends, bounces and complaints per stage.
    const emailConfigurationSet = new ses.ConfigurationSet(this, 'EmailConfigurationSet', {
      reputationMetrics: true,
    });
    emailConfigurationSet.addEventDestination('CloudWatch', {
      destination: ses.EventDestination.cloudWatchDimensions([
        {
          name: 'ses:configuration-set',
          source: ses.CloudWatchDimensionSource.MESSAGE_TAG,
          defaultValue: 'none',
        },
      ]),
      events: [
        ses.EmailSendingEvent.SEND,
        ses.EmailSendingEvent.REJECT,
        ses.EmailSendingEvent.DELIVERY,
        ses.EmailSendingEvent.BOUNCE,
        ses.EmailSendingEvent.COMPLAINT,
      ],
    });
    const deliveryScheduler = new DeliveryScheduler(this, 'DeliveryScheduler', {
      deliveryQueue: queues.delivery.queue,
    });

    // One secret per name some route reads, with a generated value: nothing secret is ever in
    // the template. Operators replace the gateway secrets with the gateways' values.
    const secrets: Partial<Record<SecretName, secretsmanager.Secret>> = {};
    const read = new Set(routes.flatMap((route) => route.needs.secrets ?? []));
    for (const name of secretNames.filter((secretName) => read.has(secretName))) {
      secrets[name] = new secretsmanager.Secret(this, secretIdOf(name), {
        description: `${name} of ${id}`,
        generateSecretString: { excludePunctuation: true, passwordLength: 64 },
      });
      acknowledgeFinding(
        secrets[name],
        'AwsSolutions-SMG4',
        'Rotated by the documented procedure, not by a rotation function: the gateway and messaging secrets are set by those platforms, and the JWT keys and the pepper rotate in steps (the new value published or accepted before it is used) that a single-value rotation would break for tokens and codes in flight.',
      );
      new CfnOutput(this, `${secretIdOf(name)}Arn`, { value: secrets[name].secretArn });
    }

    const dashboardKey = new DashboardApiKey(this, 'DashboardApiKey', {
      generation: settings.dashboardApiKeyGeneration,
    });
    const api = new ServiceApi(this, 'Api', {
      rateLimitMode: settings.rateLimitMode,
      clients: settings.apiClients,
      dashboardKey,
      wafRequestsPerIpPer5Minutes: settings.wafRequestsPerIpPer5Minutes,
      cloudWatchRole: settings.apiGatewayCloudWatchRole,
      accountsDomain: settings.accountsDomain,
      apiDomain: settings.apiDomain,
      hostedZone: settings.hostedZone,
    });

    const resources: ServiceResources = {
      table,
      email: { from: settings.emailFrom, configurationSet: emailConfigurationSet },
      sms: {
        senderId: settings.smsSenderId,
        allowedCountries: settings.smsAllowedCountries,
        maxPerHour: settings.smsMaxPerHour,
        reservedPercent: settings.smsReservedPercent,
        generic: {
          numbersPerHour: settings.genericSmsNumbersPerHour,
          perDay: settings.genericSmsPerDay,
        },
      },
      deliveryQueue: queues.delivery.queue,
      inboundQueue: queues.inbound.queue,
      accountCodeQueue: queues.accountCode.queue,
      scheduler: deliveryScheduler,
      secrets,
      // Tokens come from the accounts host and are for the general API: distinct per stage, so
      // one stage never accepts another's tokens even with the same keys.
      tokens: { issuer: api.accountsBaseUrl, audience: settings.jwtAudience ?? api.apiBaseUrl },
    };
    // Where clients reach the API (the OpenAPI document's servers): both hosts, once each.
    const publicBaseUrls = [...new Set([api.accountsBaseUrl, api.apiBaseUrl])].join(',');
    /** Notifies the alarm topic as soon as the metric sums above zero in one period. */
    const alarmOnAny = (
      metric: cloudwatch.Metric,
      alarmId: string,
      description: string,
      runbook: RunbookSection,
    ) =>
      metric
        .createAlarm(this, alarmId, {
          alarmDescription: withRunbook(description, runbook),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        })
        .addAlarmAction(alarmAction);
    const functionsByRoute = new Map<string, ServiceFunction>();
    const operated: OperatedFunction[] = [];

    for (const [entry, entryRoutes] of routesByEntry(routes)) {
      const [first] = entryRoutes as [Route, ...Route[]];
      const functionId = constructIdOf(entry);
      const needs = mergedNeeds(entryRoutes);
      const readsSecrets = (needs.secrets ?? []).length > 0;
      const fn = new ServiceFunction(this, functionId, {
        entry,
        description: entryRoutes.map((route) => route.summary).join('; '),
        ...surfaceDefaults(first.surface),
        architecture:
          settings.architecture === 'x86_64'
            ? lambda.Architecture.X86_64
            : lambda.Architecture.ARM_64,
        readsSecrets,
        reservedConcurrentExecutions:
          first.surface === 'function-url' ? settings.receiverReservedConcurrency : undefined,
        environment: {
          ...(first.surface === 'api'
            ? {
                RATE_LIMIT_MODE: settings.rateLimitMode,
                PUBLIC_BASE_URLS: publicBaseUrls,
                DASHBOARD_API_KEY_ID: dashboardKey.apiKey.keyId,
              }
            : {}),
          ...(first.surface === 'api' && settings.corsAllowedOrigins.length > 0
            ? { CORS_ALLOWED_ORIGINS: settings.corsAllowedOrigins.join(',') }
            : {}),
          ...(readsSecrets ? { SECRETS_GENERATION: settings.secretsGeneration } : {}),
        },
      }).bindNeeds(needs, resources);
      for (const route of entryRoutes) functionsByRoute.set(route.name, fn);
      operated.push({ entry, surface: first.surface, fn });

      switch (first.surface) {
        case 'api':
          for (const route of entryRoutes) if (route.surface === 'api') api.addRoute(route, fn);
          break;
        case 'function-url': {
          // Gateways authenticate by signature (checked in the handler), so the URL is public.
          const url = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
          new CfnOutput(this, `${functionId}Url`, {
            description: entryRoutes.map((route) => route.name).join(', '),
            value: url.url,
          });
          break;
        }
        case 'queue': {
          if (first.queue === undefined)
            throw new Error(`${entry} is a queue route without a queue`);
          fn.addEventSource(
            new SqsEventSource(queues[first.queue].queue, {
              batchSize: workQueueSizes.batchSize,
              // A failed message is retried alone, not with the batch that succeeded.
              reportBatchItemFailures: true,
              maxConcurrency: workQueueSizes.maxConcurrency,
            }),
          );
          alarmOnAny(
            fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
            `${functionId}ErrorsAlarm`,
            `${entry} failed invocations: a whole batch failed, or the worker crashed`,
            'worker-errors',
          );
          break;
        }
        case 'schedule':
          new events.Rule(this, `${functionId}Schedule`, {
            description: first.summary,
            schedule: events.Schedule.rate(Duration.minutes(5)),
            targets: [new eventTargets.LambdaFunction(fn)],
          });
          // A sweeper that keeps failing is silent otherwise: nothing is dead-lettered and no
          // caller sees an error, while the work it should finish piles up.
          alarmOnAny(
            fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
            `${functionId}ErrorsAlarm`,
            `${entry} failed runs: overdue work is not being swept`,
            'sweeper-errors',
          );
          break;
      }
    }

    api.addPreflights(
      routes.filter((route): route is ApiRoute => route.surface === 'api'),
      settings.corsAllowedOrigins,
    );
    new DashboardSite(this, 'Dashboard', {
      restApi: api.restApi,
      apiKey: dashboardKey,
      domain: settings.dashboardDomain,
      hostedZone: settings.hostedZone,
    });

    // The inbound sweeper gives an event up (status failed) with one error line, in a run that
    // itself succeeds: only its log says so. Each such line counts 1.
    const inboundSweeper = functionsByRoute.get('sweepInboundEvents');
    if (inboundSweeper === undefined) throw new Error('No function for sweepInboundEvents');
    const abandoned = new logs.MetricFilter(this, 'InboundEventsAbandonedFilter', {
      logGroup: inboundSweeper.logGroup,
      filterPattern: logs.FilterPattern.stringValue('$.message', '=', inboundEventAbandonedMessage),
      metricNamespace: id,
      metricName: 'InboundEventsAbandoned',
      metricValue: '1',
    });
    alarmOnAny(
      abandoned.metric({ period: Duration.minutes(5), statistic: 'Sum' }),
      'InboundEventsAbandonedAlarm',
      'An inbound event was abandoned after repeated sweeps: fix the cause, then have it resent',
      'abandoned-inbound-events',
    );

    alarmOnAny(
      api.restApi.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      'Api5xxAlarm',
      'API Gateway answered 5xx (a 5xx is a bug)',
      'api-5xx',
    );

    // SMS_MAX_PER_HOUR caps the stage's texts; a texting function logs one warning when the
    // hour's count reaches 80 % of it, and an error for each text refused at the cap. Counted
    // from every texting function's log: the first alarm comes before codes stop.
    const texting = [...routesByEntry(routes).values()]
      .filter((entryRoutes) => mergedNeeds(entryRoutes).sms)
      .map((entryRoutes) => functionsByRoute.get(entryRoutes[0]!.name)!);
    for (const [metricName, message, description, runbook] of [
      [
        'SmsCapNear',
        smsCapNearMessage,
        `Texts sent this hour reached 80 % of SMS_MAX_PER_HOUR (${settings.smsMaxPerHour}): codes will soon be refused; look for SMS pumping, or raise smsMaxPerHour`,
        'sms-cap-near',
      ],
      [
        'SmsCapReached',
        smsCapReachedMessage,
        `Texts are being refused: the hour's SMS_MAX_PER_HOUR (${settings.smsMaxPerHour}) is spent, or generic codes reached their share of it (all but the last ${settings.smsReservedPercent} %)`,
        'sms-cap-reached',
      ],
    ] as const) {
      for (const fn of texting) {
        new logs.MetricFilter(this, `${fn.node.id}${metricName}Filter`, {
          logGroup: fn.logGroup,
          filterPattern: logs.FilterPattern.stringValue('$.message', '=', message),
          metricNamespace: id,
          metricName,
          metricValue: '1',
        });
      }
      alarmOnAny(
        new cloudwatch.Metric({
          namespace: id,
          metricName,
          statistic: 'Sum',
          period: Duration.minutes(5),
        }),
        `${metricName}Alarm`,
        description,
        runbook,
      );
    }

    // Last: its dashboard lists every alarm made above.
    new ServiceOperations(this, 'Operations', {
      alarmAction,
      namespace: this.stackName,
      restApi: api.restApi,
      table,
      queues,
      functions: operated,
      emailConfigurationSet: emailConfigurationSet.configurationSetName,
      smsMonthlySpendAlarmUsd: settings.smsMonthlySpendAlarmUsd,
      signupDroughtHours: settings.signupDroughtHours,
    });

    new CfnOutput(this, 'ApiUrl', { value: `${api.stageUrl}/` });
    new CfnOutput(this, 'AccountsBaseUrl', {
      description: '{base_url}: accounts, OTPs and webhooks',
      value: api.accountsBaseUrl,
    });
    new CfnOutput(this, 'ApiBaseUrl', {
      description: '{api_base_url}: the general API and webhook registration',
      value: api.apiBaseUrl,
    });
    for (const [client, key] of api.apiKeys) {
      new CfnOutput(this, `${constructIdOf(client)}ApiKeyId`, {
        description: `API key of the client app ${client}: aws apigateway get-api-key --include-value --api-key <id>`,
        value: key.keyId,
      });
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: alarmTopic.topicArn });
  }
}
