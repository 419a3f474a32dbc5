import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { AreaStack } from './area-stack.js';
import type { DataStack } from './data-stack.js';
import { ServiceOperations } from './operations.js';
import { type RunbookSection, withRunbook } from './runbooks.js';
import type { ServiceSettings } from './settings.js';
import { stageNameOf } from './stack-outputs.js';
import { addWorkQueueAlarms } from './work-queue.js';

export interface OperationsStackProps extends StackProps {
  settings: ServiceSettings;
  data: DataStack;
  areas: readonly AreaStack[];
  restApiName: string;
}

/**
 * The stage's CloudWatch dashboard and the alarms about the stage as a whole: the work queues,
 * API Gateway's 5xx and latency, DynamoDB, Lambda throttles, SMS and email (docs/operations.md,
 * "Alarms"). Deployed last; it reads the service stacks' functions and alarms as their outputs
 * (Fn::GetStackOutput), so it never holds one of them in place.
 */
export class OperationsStack extends Stack {
  readonly operations: ServiceOperations;

  constructor(scope: Construct, id: string, props: OperationsStackProps) {
    super(scope, id, props);
    const { data, settings } = props;
    const namespace = stageNameOf(settings.stage);
    const alarmOnAny = (metricName: string, description: string, runbook: RunbookSection) =>
      new cloudwatch.Metric({
        namespace,
        metricName,
        statistic: 'Sum',
        period: Duration.minutes(5),
      })
        .createAlarm(this, `${metricName}Alarm`, {
          alarmDescription: withRunbook(description, runbook),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        })
        .addAlarmAction(data.alarmAction);

    for (const [name, work] of Object.entries(data.queues)) {
      addWorkQueueAlarms(
        this,
        name.charAt(0).toUpperCase() + name.slice(1),
        work,
        data.alarmAction,
      );
    }
    // Counted from the service stacks' log lines (AreaStack.countLogLines).
    alarmOnAny(
      'InboundEventsAbandoned',
      'An inbound event was abandoned after repeated sweeps: fix the cause, then have it resent',
      'abandoned-inbound-events',
    );
    alarmOnAny(
      'SmsCapNear',
      `Texts sent this hour reached 80 % of SMS_MAX_PER_HOUR (${settings.smsMaxPerHour}): codes will soon be refused; look for SMS pumping, or raise smsMaxPerHour`,
      'sms-cap-near',
    );
    alarmOnAny(
      'SmsCapReached',
      `Texts are being refused: the hour's SMS_MAX_PER_HOUR (${settings.smsMaxPerHour}) is spent, or generic codes reached their share of it (all but the last ${settings.smsReservedPercent} %)`,
      'sms-cap-reached',
    );

    // Last: its dashboard lists every alarm made above and in the other stacks.
    this.operations = new ServiceOperations(this, 'Operations', {
      alarmAction: data.alarmAction,
      namespace,
      restApiName: props.restApiName,
      table: data.table,
      queues: data.queues,
      functions: props.areas.flatMap((area) => area.functions),
      emailConfigurationSet: data.emailConfigurationSet.configurationSetName,
      smsMonthlySpendAlarmUsd: settings.smsMonthlySpendAlarmUsd,
      signupDroughtHours: settings.signupDroughtHours,
    });
  }
}
