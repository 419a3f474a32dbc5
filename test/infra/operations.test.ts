import { readFileSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { routes } from '../../functions/routes.js';
import { constructIdOf } from '../../infra/area-stack.js';
import { apiP99LatencyAlarmMs } from '../../infra/operations.js';
import { runbookSections } from '../../infra/runbooks.js';
import { queueOutputNames } from '../../infra/stack-outputs.js';
import { metricDefinitions } from '../../shared/domain/metrics.js';
import { mergedNeeds, routesByEntry } from '../../shared/http/route-needs.js';
import type { Route } from '../../shared/http/route-table.js';
import { checkedInContext, synthesisTimeouts, synthStage } from './synthesized-stage.js';

vi.setConfig(synthesisTimeouts);

/** A CloudFormation resource as the template holds it. */
interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

interface MetricStat {
  Metric: {
    Namespace: string;
    MetricName: string;
    Dimensions?: { Name: string; Value: unknown }[];
  };
  Period: number;
  Stat: string;
}

interface MetricQuery {
  Id: string;
  Expression?: string;
  MetricStat?: MetricStat;
  ReturnData?: boolean;
}

let template: Template;
let resources: Record<string, Resource>;
let outputs: Record<string, { Value: unknown }>;

beforeAll(() => {
  template = synthStage().template;
  ({ Resources: resources, Outputs: outputs } = template.toJSON());
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const alarms = () => ofType('AWS::CloudWatch::Alarm');
const alarmTopic = () => ({ Ref: ofType('AWS::SNS::Topic')[0]![0] });
const ref = (logicalId: string) => JSON.stringify({ Ref: logicalId });

/** The logical id of the function built for an entry (construct id + CDK's 8-character hash). */
function functionIdOf(entry: string): string {
  const pattern = new RegExp(`^${constructIdOf(entry)}[0-9A-F]{8}$`);
  const found = ofType('AWS::Lambda::Function').filter(([id]) => pattern.test(id));
  expect(found, entry).toHaveLength(1);
  return found[0]![0];
}

const entriesOn = (...surfaces: Route['surface'][]) =>
  [...routesByEntry(routes)]
    .filter(([, shared]) => surfaces.includes(shared[0]!.surface))
    .map(([entry]) => entry);

/** The metrics an alarm reads: its one metric, or each metric of its math. */
function statsOf(alarm: Resource): MetricStat[] {
  const properties = alarm.Properties;
  if (properties.MetricName !== undefined) {
    return [
      {
        Metric: {
          Namespace: properties.Namespace as string,
          MetricName: properties.MetricName as string,
          Dimensions: properties.Dimensions as MetricStat['Metric']['Dimensions'],
        },
        Period: properties.Period as number,
        Stat: (properties.Statistic ?? properties.ExtendedStatistic) as string,
      },
    ];
  }
  return ((properties.Metrics as MetricQuery[]) ?? []).flatMap((query) =>
    query.MetricStat === undefined ? [] : [query.MetricStat],
  );
}

/** The alarms whose description points at a runbook section. */
const alarmsFor = (section: string) =>
  alarms().filter(([, alarm]) =>
    String(alarm.Properties.AlarmDescription).endsWith(`docs/operations.md#${section}`),
  );

/** GitHub's anchor of a Markdown heading. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');

describe('the runbooks', () => {
  const operationsPage = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const anchors = new Set(
    [...operationsPage.matchAll(/^#{2,4} (.+)$/gm)].map((match) => anchorOf(match[1]!)),
  );

  it('name a section of docs/operations.md in every alarm’s description, and that section exists', () => {
    const described = [...alarms(), ...ofType('AWS::CloudWatch::CompositeAlarm')];
    expect(described.length).toBeGreaterThan(30);
    for (const [id, alarm] of described) {
      const section = /Runbook: docs\/operations\.md#([a-z0-9-]+)$/.exec(
        String(alarm.Properties.AlarmDescription),
      )?.[1];
      expect(section, id).toBeDefined();
      expect(anchors.has(section!), `${id} → #${section}`).toBe(true);
    }
  });

  it('cover every kind of alarm the stack raises, each used by one alarm at least', () => {
    for (const section of runbookSections) {
      expect(anchors.has(section), section).toBe(true);
      const used = [...alarms(), ...ofType('AWS::CloudWatch::CompositeAlarm')].some(([, alarm]) =>
        String(alarm.Properties.AlarmDescription).endsWith(`#${section}`),
      );
      expect(used, section).toBe(true);
    }
  });
});

describe('the alarms beyond queues and 5xx', () => {
  it('watch each receiver’s failures and 5xx answers together, and its throttles', () => {
    const receivers = entriesOn('function-url');
    expect(receivers).toHaveLength(5);
    for (const entry of receivers) {
      const fn = functionIdOf(entry);
      const own = ([, alarm]: [string, Resource]) =>
        statsOf(alarm).some((stat) => JSON.stringify(stat.Metric.Dimensions).includes(ref(fn)));
      const [errors, ...otherErrors] = alarmsFor('receiver-errors').filter(own);
      expect(otherErrors, entry).toEqual([]);
      expect(statsOf(errors![1]).map((stat) => stat.Metric.MetricName)).toEqual([
        'Errors',
        'Url5xxCount',
      ]);
      expect(errors![1].Properties).toMatchObject({
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [alarmTopic()],
      });
      const throttles = alarmsFor('receiver-throttles').filter(own);
      expect(throttles.map(([, alarm]) => alarm.Properties)).toEqual([
        expect.objectContaining({
          MetricName: 'Throttles',
          Threshold: 0,
          AlarmActions: [alarmTopic()],
        }),
      ]);
    }
  });

  it('watch every other function’s throttles, ten to an alarm, under one composite that notifies', () => {
    const groups = alarmsFor('lambda-throttles');
    const watched = groups.flatMap(([, alarm]) => {
      const stats = statsOf(alarm);
      expect(stats.length).toBeLessThanOrEqual(10);
      // The groups only feed the composite: one notification, not one per group.
      expect(alarm.Properties.AlarmActions).toBeUndefined();
      return stats.map((stat) => {
        expect(stat.Metric.MetricName).toBe('Throttles');
        return JSON.stringify(stat.Metric.Dimensions![0]!.Value);
      });
    });
    const others = entriesOn('api', 'queue', 'schedule').map((entry) => ref(functionIdOf(entry)));
    expect(watched.sort()).toEqual(others.sort());
    const [composite, ...more] = ofType('AWS::CloudWatch::CompositeAlarm');
    expect(more).toEqual([]);
    expect(composite![1].Properties.AlarmActions).toEqual([alarmTopic()]);
    const rule = JSON.stringify(composite![1].Properties.AlarmRule);
    for (const [id] of groups) expect(rule).toContain(`"${id}","Arn"`);
  });

  it('page on the API’s p99 latency held over 15 minutes', () => {
    const [latency, ...more] = alarmsFor('api-latency');
    expect(more).toEqual([]);
    expect(latency![1].Properties).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Period: 300,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Threshold: apiP99LatencyAlarmMs,
      AlarmActions: [alarmTopic()],
    });
  });

  it('page on any throttled request to the table, for every operation the service makes', () => {
    const [throttles, ...more] = alarmsFor('dynamodb-throttles');
    expect(more).toEqual([]);
    const table = ofType('AWS::DynamoDB::Table')[0]![0];
    const stats = statsOf(throttles![1]);
    expect(stats.map((stat) => stat.Metric.MetricName)).toEqual(
      Array(stats.length).fill('ThrottledRequests'),
    );
    expect(
      stats.map((stat) => stat.Metric.Dimensions!.find((d) => d.Name === 'Operation')!.Value),
    ).toEqual(
      expect.arrayContaining(['GetItem', 'Query', 'PutItem', 'UpdateItem', 'TransactWriteItems']),
    );
    for (const stat of stats) expect(JSON.stringify(stat.Metric.Dimensions)).toContain(ref(table));
    expect(throttles![1].Properties).toMatchObject({ Threshold: 0, AlarmActions: [alarmTopic()] });
  });

  it('page when a work queue’s oldest message waits longer than its work can bear', () => {
    const ages = alarmsFor('queue-backlog').map(([, alarm]) => alarm.Properties);
    expect(ages).toHaveLength(3);
    for (const alarm of ages) {
      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Statistic: 'Maximum',
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [alarmTopic()],
      });
    }
    // Account codes within 5 minutes, inbound effects within 15, deliveries (delayed up to 15
    // minutes on purpose) within 30.
    expect(ages.map((alarm) => alarm.Threshold).sort()).toEqual([1800, 300, 900]);
  });

  it('send every email through a configuration set of the stage whose bounce and complaint rates alarm', () => {
    const [[setId]] = ofType('AWS::SES::ConfigurationSet') as [[string, Resource]];
    expect(resources[setId]!.Properties).toEqual({
      ReputationOptions: { ReputationMetricsEnabled: true },
    });
    const destinations = ofType('AWS::SES::ConfigurationSetEventDestination');
    expect(destinations.map(([, destination]) => destination.Properties)).toEqual([
      {
        ConfigurationSetName: { Ref: setId },
        EventDestination: expect.objectContaining({
          Enabled: true,
          MatchingEventTypes: expect.arrayContaining(['send', 'bounce', 'complaint']),
          CloudWatchDestination: {
            DimensionConfigurations: [
              expect.objectContaining({
                DimensionName: 'ses:configuration-set',
                DimensionValueSource: 'messageTag',
              }),
            ],
          },
        }),
      },
    ]);
    const mailing = [...routesByEntry(routes)].filter(([, shared]) => mergedNeeds(shared).email);
    expect(mailing.length).toBeGreaterThan(0);
    for (const [entry] of mailing) {
      const fn = resources[functionIdOf(entry)]!;
      const environment = (fn.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(environment.SES_CONFIGURATION_SET, entry).toEqual({ Ref: setId });
    }
    for (const [section, event, percent] of [
      ['email-bounces', 'Bounce', 5],
      ['email-complaints', 'Complaint', 0.1],
    ] as const) {
      const [rate, ...more] = alarmsFor(section);
      expect(more).toEqual([]);
      const stats = statsOf(rate![1]);
      expect(stats.map((stat) => stat.Metric.MetricName).sort()).toEqual([event, 'Send'].sort());
      for (const stat of stats) {
        expect(stat.Metric).toMatchObject({
          Namespace: 'AWS/SES',
          Dimensions: [{ Name: 'ses:configuration-set', Value: { Ref: setId } }],
        });
        expect(stat.Period).toBe(6 * 3600);
      }
      const expression = (rate![1].Properties.Metrics as MetricQuery[]).find(
        (query) => query.ReturnData,
      )!.Expression;
      // A rate, judged only over enough sends.
      expect(expression).toMatch(
        /^IF\(FILL\(sends, 0\) >= \d+, 100 \* FILL\(events, 0\) \/ sends, 0\)$/,
      );
      expect(rate![1].Properties).toMatchObject({
        Threshold: percent,
        AlarmActions: [alarmTopic()],
      });
    }
  });

  it('page when SNS’s SMS spend this month passes the stage’s figure', () => {
    const [spend, ...more] = alarmsFor('sms-spend');
    expect(more).toEqual([]);
    expect(statsOf(spend![1])).toEqual([
      {
        Metric: { Namespace: 'AWS/SNS', MetricName: 'SMSMonthToDateSpentUSD' },
        Period: 3600,
        Stat: 'Maximum',
      },
    ]);
    expect(spend![1].Properties).toMatchObject({
      Threshold: checkedInContext.stages.test.smsMonthlySpendAlarmUsd,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [alarmTopic()],
    });
  });

  it('page when signups drop to zero for the stage’s hours, counting no data as none', () => {
    const [drought, ...more] = alarmsFor('signups-stopped');
    expect(more).toEqual([]);
    expect(statsOf(drought![1])).toEqual([
      {
        Metric: { Namespace: 'AccountOtpWebhookService-test', MetricName: 'Signups' },
        Period: 3600,
        Stat: 'Sum',
      },
    ]);
    // The test stage sets a week (cdk.json): a quiet stage is not an outage.
    const hours = checkedInContext.stages.test.signupDroughtHours;
    expect(hours).toBe(168);
    expect(drought![1].Properties).toMatchObject({
      EvaluationPeriods: hours,
      DatapointsToAlarm: hours,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [alarmTopic()],
    });
  });
});

describe('the dashboard', () => {
  /** The dashboard's JSON, each reference to a resource written `<logical id>`. */
  function dashboardBody(): { widgets: { type: string; properties: Record<string, unknown> }[] } {
    const [[, dashboard], ...more] = ofType('AWS::CloudWatch::Dashboard') as [[string, Resource]];
    expect(more).toEqual([]);
    expect(dashboard.Properties.DashboardName).toBe('AccountOtpWebhookService-test');
    const parts = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })[
      'Fn::Join'
    ][1];
    const text = parts
      .map((part) => {
        if (typeof part === 'string') return part;
        const reference = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
        return `<${reference.Ref ?? reference['Fn::GetAtt']![0]}>`;
      })
      .join('');
    return JSON.parse(text);
  }

  const metricsOf = (widget: { properties: Record<string, unknown> }) =>
    JSON.stringify(widget.properties.metrics ?? []);

  it('lists every alarm of every stack of the stage (the throttle groups through their composite)', () => {
    const [status] = dashboardBody().widgets.filter((widget) => widget.type === 'alarm');
    const listed = status!.properties.alarms as string[];
    const expected = [
      ...alarms().filter(
        ([, alarm]) =>
          !alarm.Properties.AlarmDescription?.toString().startsWith('Throttled invocations of'),
      ),
      ...ofType('AWS::CloudWatch::CompositeAlarm'),
    ].map(([id]) => `<${id}>`);
    // The deploy alarms of the service stacks among them, which notify no one (CodeDeploy reads them).
    expect(
      alarms().some(([, alarm]) =>
        String(alarm.Properties.AlarmDescription).endsWith('#deploy-rolled-back'),
      ),
    ).toBe(true);
    expect([...listed].sort()).toEqual(expected.sort());
  });

  it('shows traffic, errors and p50 and p99 duration of every function, grouped by family', () => {
    const widgets = dashboardBody().widgets;
    const all = JSON.stringify(widgets);
    for (const name of ['Count', '4XXError', '5XXError', 'Latency', 'IntegrationLatency']) {
      expect(all, name).toContain(`"AWS/ApiGateway","${name}"`);
    }
    for (const [entry] of routesByEntry(routes)) {
      const family = entry.split('/')[1]!;
      const durations = widgets.find((widget) => widget.properties.title === `${family} duration`);
      expect(durations, family).toBeDefined();
      const fn = functionIdOf(entry);
      for (const statistic of ['p50', 'p99']) {
        expect(metricsOf(durations!), `${entry} ${statistic}`).toMatch(
          new RegExp(`"Duration","FunctionName","<${fn}>",\\{[^}]*"stat":"${statistic}"`),
        );
      }
      for (const metric of ['Invocations', 'Errors', 'Throttles']) {
        expect(all, `${entry} ${metric}`).toContain(`"${metric}","FunctionName","<${fn}>"`);
      }
    }
  });

  it('shows every business metric of the service, in the stage’s namespace', () => {
    const namespace = 'AccountOtpWebhookService-test';
    const shown = new Set<string>();
    for (const widget of dashboardBody().widgets) {
      for (const row of (widget.properties.metrics ?? []) as unknown[][]) {
        const [first, second] = row;
        if (first === namespace) shown.add(String(second));
        const expression = (first as { expression?: string }).expression ?? '';
        // SEARCH('{"<namespace>",Outcome} MetricName="Logins"', …): every series of the metric.
        const searched = /^SEARCH\('\{"([^"]+)"[^}]*\} MetricName="(\w+)"/.exec(expression);
        if (searched?.[1] === namespace) shown.add(searched[2]!);
      }
    }
    expect([...shown].sort()).toEqual(
      expect.arrayContaining(Object.keys(metricDefinitions).sort()),
    );
  });

  it('shows the depth and age of every queue, every dead-letter queue, SMS spend and email events', () => {
    const all = JSON.stringify(dashboardBody().widgets);
    for (const [id] of ofType('AWS::SQS::Queue')) {
      expect(all, id).toContain(`"ApproximateNumberOfMessagesVisible","QueueName","<${id}>"`);
    }
    for (const name of ['Delivery', 'Inbound', 'AccountCode']) {
      const queue = ofType('AWS::SQS::Queue').find(([id]) => id.startsWith(`${name}Queue`))![0];
      expect(all, name).toContain(`"ApproximateAgeOfOldestMessage","QueueName","<${queue}>"`);
    }
    expect(all).toContain('"AWS/SNS","SMSMonthToDateSpentUSD"');
    for (const event of ['Send', 'Delivery', 'Bounce', 'Complaint']) {
      expect(all, event).toContain(`"AWS/SES","${event}","ses:configuration-set"`);
    }
    expect(all).toContain('"AWS/DynamoDB","ThrottledRequests"');
  });
});

describe('what the functions and the redrive command are given', () => {
  it('names the stage in every function’s SERVICE_NAME: its log lines’ service and its metrics’ namespace', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      if (id.startsWith('CustomCDKBucketDeployment')) continue;
      const environment = (fn.Properties.Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(environment.SERVICE_NAME, id).toBe('AccountOtpWebhookService-test');
    }
  });

  it('names the REST API after the stack: API Gateway’s metrics, alarmed on, are per API name', () => {
    const [[, restApi], ...more] = ofType('AWS::ApiGateway::RestApi') as [[string, Resource]];
    expect(more).toEqual([]);
    expect(restApi.Properties.Name).toBe('AccountOtpWebhookService-test');
    const latency = alarmsFor('api-latency')[0]![1];
    expect(latency.Properties.Dimensions).toEqual([
      { Name: 'ApiName', Value: 'AccountOtpWebhookService-test' },
    ]);
  });

  it('outputs each work queue’s ARN and its dead-letter queue’s, for npm run redrive', () => {
    for (const name of ['delivery', 'inbound', 'accountCode']) {
      const { queueArn, deadLetterQueueArn } = queueOutputNames(name);
      const pascal = name.charAt(0).toUpperCase() + name.slice(1);
      const queue = ofType('AWS::SQS::Queue').find(([id]) => id.startsWith(`${pascal}Queue`))![0];
      const dead = ofType('AWS::SQS::Queue').find(([id]) =>
        id.startsWith(`${pascal}DeadLetterQueue`),
      )![0];
      expect(outputs[queueArn]!.Value).toEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
      expect(outputs[deadLetterQueueArn]!.Value).toEqual({ 'Fn::GetAtt': [dead, 'Arn'] });
    }
  });
});
