import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { type MetricName, metricDefinitions } from '../shared/domain/metrics.js';
import type { Route } from '../shared/http/route-table.js';
import { inGroups, sumOf } from './metric-math.js';
import { type RunbookSection, withRunbook } from './runbooks.js';
import type { WorkQueue } from './work-queue.js';

/** One function of the stack, as the dashboard groups it. */
export interface OperatedFunction {
  /** The route entry (`functions/auth/login.ts`): its folder is its family. */
  entry: string;
  surface: Route['surface'];
  fn: lambda.Function;
}

export interface ServiceOperationsProps {
  /** Where every alarm reports. */
  alarmAction: cloudwatch.IAlarmAction;
  /** The namespace of the functions' embedded metrics (their SERVICE_NAME: the stage's name). */
  namespace: string;
  /** The REST API's name: API Gateway's metrics are per API name. */
  restApiName: string;
  table: dynamodb.ITable;
  queues: Record<string, WorkQueue>;
  functions: readonly OperatedFunction[];
  /** The SES configuration set every email goes through: its events give the email rates. */
  emailConfigurationSet: string;
  /** `smsMonthlySpendAlarmUsd` (infra/settings.ts). */
  smsMonthlySpendAlarmUsd: number;
  /** `signupDroughtHours` (infra/settings.ts). */
  signupDroughtHours: number;
}

const fiveMinutes = Duration.minutes(5);

/**
 * A p99 above this for 15 minutes pages: every operation answers well within it (a login, the
 * slowest, spends about 100 ms hashing its password), and API Gateway gives up at 29 s.
 */
export const apiP99LatencyAlarmMs = 3_000;

/**
 * Bounce and complaint rates are judged over six hours and only from this many sends: a single
 * bounce among three emails is not a reputation problem. SES reviews an account at a 5 % bounce
 * and a 0.1 % complaint rate; the alarms fire at those marks, before the 10 % and 0.5 % at which
 * SES may pause sending.
 */
const emailRateWindow = Duration.hours(6);
const emailRateMinimumSends = 20;
const bounceRateAlarmPercent = 5;
const complaintRateAlarmPercent = 0.1;

/** The DynamoDB operations the service makes (ThrottledRequests is published per operation). */
const tableOperations = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
  dynamodb.Operation.TRANSACT_GET_ITEMS,
];

/** `functions/auth/login.ts` → `auth`. */
const familyOf = (entry: string) => entry.split('/')[1] ?? entry;

/**
 * The stage's operations: a CloudWatch dashboard of its traffic, errors, latencies, business
 * metrics, queues, DynamoDB, SMS spend and email reputation, and the alarms that the service
 * stacks do not already raise (docs/operations.md has a runbook for each). Built last, so the
 * dashboard's alarm widget lists every alarm of every stack of the stage.
 */
export class ServiceOperations extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ServiceOperationsProps,
  ) {
    super(scope, id);
    this.throttleAlarm(props.functions.filter((item) => item.surface !== 'function-url'));
    this.alarm('Api5xxAlarm', {
      metric: this.api('5XXError', 'Sum'),
      description: 'API Gateway answered 5xx (a 5xx is a bug)',
      runbook: 'api-5xx',
    });
    this.alarm('ApiLatencyAlarm', {
      metric: this.api('Latency', 'p99'),
      threshold: apiP99LatencyAlarmMs,
      evaluationPeriods: 3,
      description: `API Gateway's p99 latency stayed over ${apiP99LatencyAlarmMs} ms for 15 minutes`,
      runbook: 'api-latency',
    });
    this.alarm('DynamoDbThrottlesAlarm', {
      metric: props.table.metricThrottledRequestsForOperations({
        operations: tableOperations,
        period: fiveMinutes,
      }),
      description: 'DynamoDB throttled requests to the table',
      runbook: 'dynamodb-throttles',
    });
    this.alarm('SmsSpendAlarm', {
      metric: this.smsSpend(),
      threshold: props.smsMonthlySpendAlarmUsd,
      description: `SNS's SMS spend this month passed ${props.smsMonthlySpendAlarmUsd} USD`,
      runbook: 'sms-spend',
    });
    this.alarm('EmailBounceRateAlarm', {
      metric: this.emailRate('Bounce'),
      threshold: bounceRateAlarmPercent,
      description: `Over ${bounceRateAlarmPercent} % of the emails sent in 6 hours bounced`,
      runbook: 'email-bounces',
    });
    this.alarm('EmailComplaintRateAlarm', {
      metric: this.emailRate('Complaint'),
      threshold: complaintRateAlarmPercent,
      description: `Over ${complaintRateAlarmPercent} % of the emails sent in 6 hours were reported as spam`,
      runbook: 'email-complaints',
    });
    const hours = props.signupDroughtHours;
    this.alarm('SignupsStoppedAlarm', {
      metric: this.business('Signups', Duration.hours(1)),
      threshold: 1,
      comparison: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: hours,
      // No signup means no data point at all: that is what this alarm is about.
      missing: cloudwatch.TreatMissingData.BREACHING,
      description: `No account was signed up for ${hours} hour(s)`,
      runbook: 'signups-stopped',
    });
    this.dashboard = this.buildDashboard();
  }

  /**
   * Throttling of any other function (the account's unreserved concurrency ran out): alarms of
   * ten functions each (the most one alarm's math may read), under one composite alarm that
   * notifies.
   */
  private throttleAlarm(functions: readonly OperatedFunction[]): void {
    const groups: cloudwatch.IAlarm[] = [];
    for (const group of inGroups(functions)) {
      groups.push(
        sumOf(
          group.map(({ fn }) => fn.metricThrottles({ statistic: 'Sum', period: fiveMinutes })),
          'throttled invocations',
          fiveMinutes,
        ).createAlarm(this, `LambdaThrottles${groups.length + 1}`, {
          alarmDescription: withRunbook(
            `Throttled invocations of ${group.map(({ fn }) => fn.node.id).join(', ')}`,
            'lambda-throttles',
          ),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    new cloudwatch.CompositeAlarm(this, 'LambdaThrottlesAlarm', {
      alarmDescription: withRunbook(
        'Lambda throttled invocations of the service: the account ran out of concurrency',
        'lambda-throttles',
      ),
      alarmRule: cloudwatch.AlarmRule.anyOf(...groups),
    }).addAlarmAction(this.props.alarmAction);
  }

  private alarm(
    id: string,
    options: {
      metric: cloudwatch.IMetric;
      description: string;
      runbook: RunbookSection;
      /** @default 0 */
      threshold?: number;
      /** @default GREATER_THAN_THRESHOLD */
      comparison?: cloudwatch.ComparisonOperator;
      /** Consecutive periods, all breaching. @default 1 */
      evaluationPeriods?: number;
      /** @default NOT_BREACHING: no data, no traffic, no problem */
      missing?: cloudwatch.TreatMissingData;
    },
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric: options.metric,
      alarmDescription: withRunbook(options.description, options.runbook),
      threshold: options.threshold ?? 0,
      comparisonOperator:
        options.comparison ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      datapointsToAlarm: options.evaluationPeriods ?? 1,
      treatMissingData: options.missing ?? cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.props.alarmAction);
    return alarm;
  }

  /** One of API Gateway's metrics of the stage's API. */
  private api(metricName: string, statistic: string, label?: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/ApiGateway',
      metricName,
      dimensionsMap: { ApiName: this.props.restApiName },
      statistic,
      period: fiveMinutes,
      label,
    });
  }

  /** One of the service's own metrics (shared/domain/metrics.ts), without dimensions. */
  private business(name: MetricName, period = fiveMinutes, statistic = 'Sum'): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.props.namespace,
      metricName: name,
      statistic,
      period,
      label: name,
    });
  }

  /** Every series of one of the service's metrics, one line per value of `dimensions`. */
  private search(name: MetricName, dimensions: readonly string[], label: string) {
    const schema = [`"${this.props.namespace}"`, ...dimensions].join(',');
    return new cloudwatch.MathExpression({
      expression: `SEARCH('{${schema}} MetricName="${name}"', 'Sum', 300)`,
      usingMetrics: {},
      label,
      period: fiveMinutes,
    });
  }

  private smsSpend(): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/SNS',
      metricName: 'SMSMonthToDateSpentUSD',
      statistic: 'Maximum',
      period: Duration.hours(1),
      label: 'SMS spend this month (USD)',
    });
  }

  /** The configuration set's count of one SES event (its CloudWatch event destination). */
  private email(
    event: 'Send' | 'Bounce' | 'Complaint' | 'Delivery' | 'Reject',
    period = fiveMinutes,
  ) {
    return new cloudwatch.Metric({
      namespace: 'AWS/SES',
      metricName: event,
      dimensionsMap: { 'ses:configuration-set': this.props.emailConfigurationSet },
      statistic: 'Sum',
      period,
      label: event,
    });
  }

  /** Percent of the window's sends that met `event`, 0 below the minimum volume. */
  private emailRate(event: 'Bounce' | 'Complaint'): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: `IF(FILL(sends, 0) >= ${emailRateMinimumSends}, 100 * FILL(events, 0) / sends, 0)`,
      usingMetrics: {
        sends: this.email('Send', emailRateWindow),
        events: this.email(event, emailRateWindow),
      },
      label: `${event} rate (%)`,
      period: emailRateWindow,
    });
  }

  private buildDashboard(): cloudwatch.Dashboard {
    const { props } = this;
    const families = new Map<string, OperatedFunction[]>();
    for (const item of props.functions) {
      const family = familyOf(item.entry);
      families.set(family, [...(families.get(family) ?? []), item]);
    }
    /** One sum per family, labelled `<family> <what>`. */
    const perFamily = (what: string, metricOf: (fn: lambda.Function) => cloudwatch.IMetric) =>
      [...families].map(([family, members]) =>
        sumOf(
          members.map(({ fn }) => metricOf(fn)),
          `${family} ${what}`,
          fiveMinutes,
        ),
      );
    const graph = (
      title: string,
      left: cloudwatch.IMetric[],
      options: { width?: number; stacked?: boolean; right?: cloudwatch.IMetric[] } = {},
    ) =>
      new cloudwatch.GraphWidget({
        title,
        left,
        right: options.right,
        width: options.width ?? 8,
        height: 6,
        stacked: options.stacked,
      });
    const heading = (text: string) =>
      new cloudwatch.TextWidget({ markdown: `## ${text}`, width: 24, height: 1 });
    const queues = Object.entries(props.queues);
    // Every alarm of the stage, whichever stack raised it.
    const alarms = this.node.root.node
      .findAll()
      .filter(
        (construct): construct is cloudwatch.Alarm | cloudwatch.CompositeAlarm =>
          (construct instanceof cloudwatch.Alarm &&
            !construct.node.id.startsWith('LambdaThrottles')) ||
          construct instanceof cloudwatch.CompositeAlarm,
      );

    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.namespace,
      defaultInterval: Duration.hours(6),
    });
    dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms (runbooks: docs/operations.md)',
        alarms,
        width: 24,
        height: 4,
      }),
    );
    dashboard.addWidgets(heading('Traffic and errors'));
    dashboard.addWidgets(
      graph('API requests and errors', [
        this.api('Count', 'Sum', 'requests'),
        this.api('4XXError', 'Sum', '4xx'),
        this.api('5XXError', 'Sum', '5xx'),
      ]),
      graph(
        'Invocations per family',
        perFamily('invocations', (fn) =>
          fn.metricInvocations({ statistic: 'Sum', period: fiveMinutes }),
        ),
        { stacked: true },
      ),
      graph('Function errors and throttles per family', [
        ...perFamily('errors', (fn) => fn.metricErrors({ statistic: 'Sum', period: fiveMinutes })),
        ...perFamily('throttles', (fn) =>
          fn.metricThrottles({ statistic: 'Sum', period: fiveMinutes }),
        ),
      ]),
    );
    dashboard.addWidgets(heading('Latency: p50 and p99 per operation family (function duration)'));
    dashboard.addWidgets(
      graph('API Gateway latency', [
        this.api('Latency', 'p50', 'p50'),
        this.api('Latency', 'p99', 'p99'),
        this.api('IntegrationLatency', 'p99', 'integration p99'),
      ]),
      ...[...families].map(([family, members]) =>
        graph(
          `${family} duration`,
          members.flatMap(({ fn }) =>
            ['p50', 'p99'].map((statistic) =>
              fn.metricDuration({
                statistic,
                period: fiveMinutes,
                label: `${fn.node.id} ${statistic}`,
              }),
            ),
          ),
        ),
      ),
    );
    dashboard.addWidgets(heading('Business'));
    const described = (name: MetricName) => `${name}: ${metricDefinitions[name].description}`;
    dashboard.addWidgets(
      graph('Signups and activations', [this.business('Signups'), this.business('Activations')]),
      graph(described('Logins'), [this.search('Logins', ['Outcome'], '')]),
      graph(described('Refreshes'), [this.search('Refreshes', ['Outcome'], '')]),
      graph(described('MfaChallenges'), [this.search('MfaChallenges', ['Factor'], '')]),
      graph(described('PasskeySignIns'), [this.search('PasskeySignIns', ['Outcome'], '')]),
      graph(described('MfaVerifications'), [
        this.search('MfaVerifications', ['Outcome', 'Factor'], ''),
      ]),
      graph('Codes sent per channel', [this.search('OtpSent', ['Channel'], '')]),
      graph('Texts per country', [this.search('OtpSent', ['Channel', 'Country'], '')]),
      graph(described('OtpVerifications'), [this.search('OtpVerifications', ['Outcome'], '')]),
      graph(described('RateLimited'), [this.search('RateLimited', ['Limit'], '')]),
      graph(described('SmsRefused'), [this.search('SmsRefused', ['Limit'], '')]),
      graph(described('InboundEvents'), [this.search('InboundEvents', ['Source', 'Outcome'], '')]),
      graph('Delivery attempts per outcome', [this.search('DeliveryAttempts', ['Outcome'], '')]),
      graph('Delivery attempts per outcome and attempt', [
        this.search('DeliveryAttempts', ['Outcome', 'Attempt'], ''),
      ]),
      graph('Delivery latency (publication to delivery)', [
        this.business('DeliveryLatency', fiveMinutes, 'p50').with({ label: 'p50' }),
        this.business('DeliveryLatency', fiveMinutes, 'p99').with({ label: 'p99' }),
      ]),
      graph('Endpoints disabled for failing', [this.business('EndpointsAutoDisabled')]),
      graph(described('DeliveriesDeferred'), [this.search('DeliveriesDeferred', ['Reason'], '')]),
      graph('Endpoint circuits opened, ladder wake-ups failed, digests sent', [
        this.business('EndpointCircuitOpened').with({ label: 'circuits opened' }),
        this.business('LadderWakeFailed').with({ label: 'ladder wake-ups failed' }),
        this.business('FailureDigestsSent').with({ label: 'failure digests sent' }),
      ]),
    );
    dashboard.addWidgets(heading('Queues'));
    dashboard.addWidgets(
      graph(
        'Messages waiting',
        queues.map(([name, work]) =>
          work.queue.metricApproximateNumberOfMessagesVisible({
            statistic: 'Maximum',
            period: fiveMinutes,
            label: name,
          }),
        ),
      ),
      graph(
        'Age of the oldest message (s)',
        queues.map(([name, work]) =>
          work.queue.metricApproximateAgeOfOldestMessage({
            statistic: 'Maximum',
            period: fiveMinutes,
            label: name,
          }),
        ),
      ),
      graph(
        'Dead-letter queues',
        queues.map(([name, work]) =>
          work.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            statistic: 'Maximum',
            period: fiveMinutes,
            label: `${name} dead letters`,
          }),
        ),
      ),
    );
    dashboard.addWidgets(heading('DynamoDB, SMS and email'));
    dashboard.addWidgets(
      graph(
        'DynamoDB throttled requests and capacity',
        [
          props.table.metricThrottledRequestsForOperations({
            operations: tableOperations,
            period: fiveMinutes,
          }),
        ],
        {
          right: [
            props.table.metricConsumedReadCapacityUnits({ statistic: 'Sum', period: fiveMinutes }),
            props.table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', period: fiveMinutes }),
          ],
        },
      ),
      graph('SMS spend this month (USD) and texts sent', [this.smsSpend()], {
        right: [this.search('OtpSent', ['Channel'], 'codes sent')],
      }),
      graph(
        'Email: sends, deliveries, bounces, complaints',
        [this.email('Send'), this.email('Delivery'), this.email('Reject')],
        {
          right: [this.email('Bounce'), this.email('Complaint')],
        },
      ),
    );
    return dashboard;
  }
}
