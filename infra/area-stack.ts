import {
  type CfnElement,
  CfnOutput,
  CrossStackReferences,
  Duration,
  ReferenceStrength,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as codedeploy from 'aws-cdk-lib/aws-codedeploy';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { deliveryWorkerSizes, surfaceSizes, workQueueSizes } from '../shared/deployment-sizes.js';
import { inboundEventAbandonedMessage } from '../shared/domain/inbound/sweep-events.js';
import type { MetricName } from '../shared/domain/metrics.js';
import { smsCapNearMessage, smsCapReachedMessage } from '../shared/domain/otp/sms-cap.js';
import { mergedNeeds, routesByEntry } from '../shared/http/route-needs.js';
import type { ApiRoute, Route } from '../shared/http/route-table.js';
import { acknowledgeFinding } from './acknowledge-finding.js';
import type { Area } from './areas.js';
import type { DataStack } from './data-stack.js';
import { inGroups, maxOf, sumOf } from './metric-math.js';
import { apiP99LatencyAlarmMs, type OperatedFunction } from './operations.js';
import { type RunbookSection, withRunbook } from './runbooks.js';
import {
  addPreflights,
  addRouteMethod,
  baseUrlsOf,
  type ResourceAt,
  type ServiceRestApi,
} from './service-api.js';
import { ServiceFunction, type ServiceResources } from './service-function.js';
import type { ServiceSettings, TrafficShifting } from './settings.js';
import { stageNameOf } from './stack-outputs.js';

/** `functions/receivers/gateway-b-webhook.ts` → `ReceiversGatewayBWebhook`. */
export function constructIdOf(entry: string): string {
  return entry
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .split(/[/-]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** `webhooks` → `Webhooks`. */
const titleOf = (area: Area) => area.charAt(0).toUpperCase() + area.slice(1);

/**
 * Timeout and memory per surface, from `shared/deployment-sizes.ts` (where the local runtime reads
 * them too).
 */
const surfaceDefaults = (surface: Route['surface']) => ({
  timeout: Duration.seconds(surfaceSizes[surface].timeoutSeconds),
  memorySize: surfaceSizes[surface].memoryMb,
});

const trafficShiftingConfigs: Record<TrafficShifting, codedeploy.ILambdaDeploymentConfig> = {
  canary: codedeploy.LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  linear: codedeploy.LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
  'all-at-once': codedeploy.LambdaDeploymentConfig.ALL_AT_ONCE,
};

const oneMinute = Duration.minutes(1);
const fiveMinutes = Duration.minutes(5);

export interface AreaStackProps extends StackProps {
  area: Area;
  /** The routes of this area. */
  routes: readonly Route[];
  settings: ServiceSettings;
  data: DataStack;
  api: ServiceRestApi;
  /** The id of the key only the dashboard's distribution holds (an output of its stack). */
  dashboardKeyId: string;
  /** Where the dashboard is (`https://<host>/`): the links of the emails functions send. */
  dashboardUrl: string;
  /**
   * For an area that serves a branch of another's first segment (infra/areas.ts): that segment's
   * resource, which the other area's stack creates.
   */
  trunk?: apigateway.IResource;
}

/**
 * One area of the service (infra/areas.ts): a Lambda per distinct entry of its routes, placed on
 * the surface its routes name — a method of the REST API, a Function URL, a queue, a schedule —
 * through its `live` alias, and granted exactly what their `needs` list, on the data stack's
 * table, queues and secrets. A deploy moves each alias to the new version by CodeDeploy
 * (`trafficShifting`), and rolls it back if one of the area's deploy alarms fires meanwhile: an
 * API answer of 5xx, a failed invocation, or a p99 duration over the API's latency bound.
 */
export class AreaStack extends Stack {
  readonly area: Area;
  readonly functions: (OperatedFunction & { fn: ServiceFunction })[] = [];
  /** The API resources and methods this area added: what the stage's deployment holds. */
  readonly apiElements: CfnElement[] = [];
  /** The alarms that roll a deploy of this area back. */
  private readonly deployAlarms: cloudwatch.Alarm[] = [];
  private readonly stageName: string;
  /** The stage-namespace metric that counts this area's API 5xx answers. */
  private readonly answered5xxMetric: string;
  private readonly routesOfEntry = new Map<string, readonly Route[]>();
  private readonly resourceAt: ResourceAt;
  private readonly apiRoot: apigateway.IResource;

  constructor(scope: Construct, id: string, props: AreaStackProps) {
    super(scope, id, props);
    const { area, settings, data } = props;
    this.area = area;
    this.stageName = stageNameOf(settings.stage);
    this.answered5xxMetric = `${titleOf(area)}Answered5xx`;
    const alarmAction = data.alarmAction;
    const restApi = apigateway.RestApi.fromRestApiAttributes(this, 'RestApi', {
      restApiId: props.api.restApi.restApiId,
      rootResourceId: props.api.restApi.restApiRootResourceId,
    });
    acknowledgeFinding(
      restApi,
      'AwsSolutions-APIG4',
      'The service is its own identity provider: user routes are authorised in the function (EdDSA access token plus a live-session check, so logout revokes at once); sign-up, login, OTP and public documents are open by contract; POST /events uses AWS_IAM. Every method also requires an API key of a usage plan.',
    );
    acknowledgeFinding(
      restApi,
      'AwsSolutions-COG4',
      'No Cognito user pool by design: this service issues and revokes its own sessions (docs/accounts.md, "Sessions and refresh tokens"); a Cognito authorizer could not check that a session is still live.',
    );
    this.apiRoot = restApi.root;
    this.resourceAt = this.resourcesOn(restApi, props.trunk);
    const urls = baseUrlsOf(this, restApi.restApiId, settings);
    const resources: ServiceResources = {
      table: data.table,
      email: { from: settings.emailFrom, configurationSet: data.emailConfigurationSet },
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
      deliveryQueue: data.queues.delivery.queue,
      inboundQueue: data.queues.inbound.queue,
      accountCodeQueue: data.queues.accountCode.queue,
      scheduler: data.deliveryScheduler,
      secrets: data.secrets,
      // Tokens come from the accounts host and are for the general API: distinct per stage, so
      // one stage never accepts another's tokens even with the same keys.
      tokens: { issuer: urls.accountsBaseUrl, audience: settings.jwtAudience ?? urls.apiBaseUrl },
    };
    // Where clients reach the API (the OpenAPI document's servers): both hosts, once each.
    const publicBaseUrls = [...new Set([urls.accountsBaseUrl, urls.apiBaseUrl])].join(',');

    for (const [entry, entryRoutes] of routesByEntry(props.routes)) {
      const [first] = entryRoutes as [Route, ...Route[]];
      const functionId = constructIdOf(entry);
      const needs = mergedNeeds(entryRoutes);
      const fn = new ServiceFunction(this, functionId, {
        entry,
        serviceName: this.stageName,
        description: entryRoutes.map((route) => route.summary).join('; '),
        ...surfaceDefaults(first.surface),
        architecture:
          settings.architecture === 'x86_64'
            ? lambda.Architecture.X86_64
            : lambda.Architecture.ARM_64,
        readsSecrets: (needs.secrets ?? []).length > 0,
        reservedConcurrentExecutions:
          first.surface === 'function-url' ? settings.receiverReservedConcurrency : undefined,
        environment: {
          // The emails link to the dashboard's pages (a failure digest to the failed deliveries).
          // Passkeys are bound to the dashboard's host unless the stage names its own party.
          ...(needs.email || needs.passkeys ? { DASHBOARD_URL: props.dashboardUrl } : {}),
          ...(first.surface === 'api'
            ? {
                RATE_LIMIT_MODE: settings.rateLimitMode,
                PUBLIC_BASE_URLS: publicBaseUrls,
                DASHBOARD_API_KEY_ID: props.dashboardKeyId,
                // Each custom domain serves its own host's operations only (api-handler.ts).
                ...(settings.accountsDomain === undefined
                  ? {}
                  : { ACCOUNTS_DOMAIN_NAME: settings.accountsDomain.domainName }),
                ...(settings.apiDomain === undefined
                  ? {}
                  : { API_DOMAIN_NAME: settings.apiDomain.domainName }),
                ...(settings.corsAllowedOrigins.length > 0
                  ? { CORS_ALLOWED_ORIGINS: settings.corsAllowedOrigins.join(',') }
                  : {}),
                // A publishing backend is one client at hundreds a second; its tier's usage plan
                // and the web ACL bound it, not a user's limit (docs/deployment.md).
                ...(first.auth === 'iam'
                  ? { RATE_LIMIT_PER_MINUTE: String(60 * settings.eventPublishesPerSecond) }
                  : {}),
              }
            : {}),
        },
      }).bindNeeds(needs, resources);
      // The operations stack reads its metrics as outputs of this stack, not exports: a function
      // removed with its operation is then removed in one deploy.
      CrossStackReferences.of(fn).produce(ReferenceStrength.WEAK);
      this.routesOfEntry.set(entry, entryRoutes);
      this.functions.push({ entry, surface: first.surface, fn });
      this.placeOnSurface(fn, functionId, entryRoutes, data);
    }

    const apiRoutes = props.routes.filter((route): route is ApiRoute => route.surface === 'api');
    addPreflights(this.resourceAt, apiRoutes, settings.corsAllowedOrigins);
    this.apiElements.push(
      ...restApi.node
        .findAll()
        .filter(
          (construct): construct is CfnElement =>
            construct instanceof apigateway.CfnMethod ||
            construct instanceof apigateway.CfnResource,
        ),
    );

    this.countLogLines();
    this.addDeployAlarms();
    this.addDeploymentGroups(settings.trafficShifting);
    for (const alarm of this.node.findAll()) {
      if (alarm instanceof cloudwatch.Alarm) {
        CrossStackReferences.of(alarm).produce(ReferenceStrength.WEAK);
        if (!this.deployAlarms.includes(alarm)) alarm.addAlarmAction(alarmAction);
      }
    }
  }

  /**
   * The API resource of one of this area's paths: below the trunk's path on the trunk (a resource
   * of another area's stack), else on the API's root.
   */
  private resourcesOn(restApi: apigateway.IRestApi, trunk?: apigateway.IResource): ResourceAt {
    if (trunk === undefined) return (path) => restApi.root.resourceForPath(path);
    // Referenced by an export: the trunk's stack cannot remove it while this branch hangs on it.
    // Under the API's construct, as every resource the area adds (its findings acknowledged there).
    const imported = apigateway.Resource.fromResourceAttributes(restApi, 'Trunk', {
      resourceId: trunk.resourceId,
      restApi,
      path: trunk.path,
    });
    return (path) =>
      path.startsWith(`${trunk.path}/`)
        ? imported.resourceForPath(path.slice(trunk.path.length + 1))
        : restApi.root.resourceForPath(path);
  }

  /**
   * The existing API resource of `path` in this area's stack (a branch's trunk, for the area that
   * serves the branch).
   */
  trunkAt(path: string): apigateway.IResource {
    const resource = path
      .split('/')
      .slice(1)
      .reduce<apigateway.IResource | undefined>(
        (parent, part) => parent?.getResource(part),
        this.apiRoot,
      );
    if (resource === undefined) throw new Error(`the ${this.area} area has no resource ${path}`);
    return resource;
  }

  /** The function's surface, through its `live` alias, and the alarms that surface needs. */
  private placeOnSurface(
    fn: ServiceFunction,
    functionId: string,
    entryRoutes: readonly Route[],
    data: DataStack,
  ): void {
    const [first] = entryRoutes as [Route, ...Route[]];
    switch (first.surface) {
      case 'api':
        for (const route of entryRoutes) {
          if (route.surface === 'api') addRouteMethod(this.resourceAt, route, fn.live);
        }
        break;
      case 'function-url': {
        // Gateways authenticate by signature (checked in the handler), so the URL is public.
        const url = fn.live.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
        new CfnOutput(this, `${functionId}Url`, {
          description: entryRoutes.map((route) => route.name).join(', '),
          value: url.url,
        });
        this.receiverAlarms(fn);
        break;
      }
      case 'queue': {
        if (first.queue === undefined)
          throw new Error(`${first.entry} is a queue route without a queue`);
        // The delivery worker is sized for the fleet (deployment-sizes.ts says why).
        const workerSizes = first.queue === 'delivery' ? deliveryWorkerSizes : workQueueSizes;
        fn.live.addEventSource(
          new SqsEventSource(data.queues[first.queue].queue, {
            batchSize: workerSizes.batchSize,
            // A failed message is retried alone, not with the batch that succeeded.
            reportBatchItemFailures: true,
            maxConcurrency: workerSizes.maxConcurrency,
          }),
        );
        this.alarmOnAny(
          fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
          `${functionId}ErrorsAlarm`,
          `${first.entry} failed invocations: a whole batch failed, or the worker crashed`,
          'worker-errors',
        );
        if (first.queue === 'delivery') {
          // The retry ladder's wake-ups: a due minute without its schedule waits for the
          // periodic sweep (up to 5 minutes late) until the next attempt creates it.
          this.alarmOnAny(
            new cloudwatch.Metric({
              namespace: this.stageName,
              metricName: 'LadderWakeFailed' satisfies MetricName,
              statistic: 'Sum',
              period: fiveMinutes,
            }),
            'LadderWakeFailedAlarm',
            "A due minute's retry-ladder schedule could not be created (CreateSchedule failed): retries of that minute go out late, by the periodic sweep",
            'ladder-wake-failed',
          );
        }
        break;
      }
      case 'schedule':
        new events.Rule(this, `${functionId}Schedule`, {
          description: first.summary,
          schedule: events.Schedule.rate(fiveMinutes),
          targets: [new eventTargets.LambdaFunction(fn.live)],
        });
        // A sweeper that keeps failing is silent otherwise: nothing is dead-lettered and no
        // caller sees an error, while the work it should finish piles up.
        this.alarmOnAny(
          fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
          `${functionId}ErrorsAlarm`,
          `${first.entry} failed runs: overdue work is not being swept`,
          'sweeper-errors',
        );
        break;
    }
  }

  /** An alarm as soon as the metric sums above zero in one period. */
  private alarmOnAny(
    metric: cloudwatch.IMetric,
    alarmId: string,
    description: string,
    runbook: RunbookSection,
  ): cloudwatch.Alarm {
    return new cloudwatch.Alarm(this, alarmId, {
      metric,
      alarmDescription: withRunbook(description, runbook),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** A receiver answers 5xx without failing its invocation, so both count as its errors. */
  private receiverAlarms(fn: ServiceFunction): void {
    const name = fn.node.id;
    this.alarmOnAny(
      sumOf(
        [
          fn.metricErrors({ statistic: 'Sum', period: fiveMinutes }),
          fn.metric('Url5xxCount', { statistic: 'Sum', period: fiveMinutes }),
        ],
        `${name} errors and 5xx answers`,
        fiveMinutes,
      ),
      `${name}ErrorsAlarm`,
      `${name} failed or answered 5xx: a gateway's webhooks are not being taken`,
      'receiver-errors',
    );
    this.alarmOnAny(
      fn.metricThrottles({ statistic: 'Sum', period: fiveMinutes }),
      `${name}ThrottlesAlarm`,
      `${name} was throttled at its reserved concurrency: calls were refused with 429`,
      'receiver-throttles',
    );
  }

  /**
   * Metrics counted from the functions' own log lines, in the stage's namespace: each 5xx answer
   * of the area's API functions (its deploy alarm's), the texting functions' SMS-cap warnings, and
   * the inbound sweeper's abandoned events (their alarms are the operations stack's).
   */
  private countLogLines(): void {
    const count = (fn: ServiceFunction, metricName: string, pattern: logs.IFilterPattern) =>
      new logs.MetricFilter(this, `${fn.node.id}${metricName}Filter`, {
        logGroup: fn.logGroup,
        filterPattern: pattern,
        metricNamespace: this.stageName,
        metricName,
        metricValue: '1',
      });
    for (const { fn, surface, entry } of this.functions) {
      const entryRoutes = this.routesOfEntry.get(entry) ?? [];
      if (surface === 'api') {
        count(
          fn,
          this.answered5xxMetric,
          logs.FilterPattern.all(
            logs.FilterPattern.stringValue('$.message', '=', 'request'),
            logs.FilterPattern.numberValue('$.status', '>=', 500),
          ),
        );
      }
      if (mergedNeeds(entryRoutes).sms) {
        // SMS_MAX_PER_HOUR caps the stage's texts; a texting function logs one warning when the
        // hour's count reaches 80 % of it, and an error for each text refused at the cap.
        count(
          fn,
          'SmsCapNear',
          logs.FilterPattern.stringValue('$.message', '=', smsCapNearMessage),
        );
        count(
          fn,
          'SmsCapReached',
          logs.FilterPattern.stringValue('$.message', '=', smsCapReachedMessage),
        );
      }
      if (entryRoutes.some((route) => route.name === 'sweepInboundEvents')) {
        // The sweeper gives an event up (status failed) with one error line, in a run that
        // itself succeeds: only its log says so. Each such line counts 1.
        count(
          fn,
          'InboundEventsAbandoned',
          logs.FilterPattern.stringValue('$.message', '=', inboundEventAbandonedMessage),
        );
      }
    }
  }

  /**
   * What rolls a deploy of the area back, each evaluated every minute: a 5xx answer of one of its
   * API functions or receivers; a failed invocation of any of its functions; a p99 duration of an
   * API function or receiver over the API's latency bound. In groups of ten functions, the most
   * one alarm's math reads. They notify no one (the operations alarms do): CodeDeploy watches them.
   */
  private addDeployAlarms(): void {
    const serving = this.functions.filter(
      ({ surface }) => surface === 'api' || surface === 'function-url',
    );
    const gate = (id: string, metric: cloudwatch.IMetric, threshold: number, description: string) =>
      this.deployAlarms.push(
        new cloudwatch.Alarm(this, id, {
          metric,
          alarmDescription: withRunbook(description, 'deploy-rolled-back'),
          threshold,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    const title = titleOf(this.area);
    const answers5xx = [
      ...(serving.some(({ surface }) => surface === 'api')
        ? [
            new cloudwatch.Metric({
              namespace: this.stageName,
              metricName: this.answered5xxMetric,
              statistic: 'Sum',
              period: oneMinute,
            }),
          ]
        : []),
      ...serving
        .filter(({ surface }) => surface === 'function-url')
        .map(({ fn }) => fn.metric('Url5xxCount', { statistic: 'Sum', period: oneMinute })),
    ];
    gate(
      `${title}Answered5xxAlarm`,
      sumOf(answers5xx, `${this.area} 5xx answers`, oneMinute),
      0,
      `The ${this.area} area answered 5xx`,
    );
    for (const [group, members] of inGroups(this.functions).entries()) {
      gate(
        `${title}Errors${group + 1}Alarm`,
        sumOf(
          members.map(({ fn }) => fn.metricErrors({ statistic: 'Sum', period: oneMinute })),
          `${this.area} failed invocations ${group + 1}`,
          oneMinute,
        ),
        0,
        `Failed invocations of ${members.map(({ fn }) => fn.node.id).join(', ')}`,
      );
    }
    for (const [group, members] of inGroups(serving).entries()) {
      gate(
        `${title}Latency${group + 1}Alarm`,
        maxOf(
          members.map(({ fn }) => fn.metricDuration({ statistic: 'p99', period: oneMinute })),
          `${this.area} p99 duration ${group + 1}`,
          oneMinute,
        ),
        apiP99LatencyAlarmMs,
        `A p99 duration over ${apiP99LatencyAlarmMs} ms in ${members.map(({ fn }) => fn.node.id).join(', ')}`,
      );
    }
  }

  /**
   * A CodeDeploy deployment group per function: each deploy moves its `live` alias to the new
   * version as `trafficShifting` says, and back if a deploy alarm of the area fires meanwhile
   * (or the deployment fails or is stopped). One application and one service role per area.
   */
  private addDeploymentGroups(trafficShifting: TrafficShifting): void {
    const application = new codedeploy.LambdaApplication(this, `${titleOf(this.area)}Deploys`, {
      applicationName: `${this.stageName}-${this.area}`,
    });
    const role = new iam.Role(this, `${titleOf(this.area)}DeployRole`, {
      assumedBy: new iam.ServicePrincipal('codedeploy.amazonaws.com'),
      description: `CodeDeploy: shifts the live aliases of the ${this.area} area`,
    });
    acknowledgeFinding(
      role,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      "CodeDeploy's service role for Lambda: AWS's managed policy is the documented one (update and read aliases, read alarms), and the deployment groups attach it themselves.",
    );
    for (const { fn } of this.functions) {
      new codedeploy.LambdaDeploymentGroup(this, `${fn.node.id}Deploy`, {
        application,
        alias: fn.live,
        role,
        deploymentConfig: trafficShiftingConfigs[trafficShifting],
        alarms: this.deployAlarms,
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
    }
  }
}
