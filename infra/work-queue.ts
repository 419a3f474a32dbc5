import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface WorkQueueProps {
  /** At least six times the consumer's timeout (AWS's advice for Lambda event sources). */
  visibilityTimeout: Duration;
  /**
   * Receives before a message moves to the dead-letter queue. Retries of a failed webhook
   * attempt follow the Scheduler ladder, not redelivery: this only catches crashing messages.
   * @default 5
   */
  maxReceiveCount?: number;
  /** Where the dead-letter alarm reports. */
  alarmAction: cloudwatch.IAlarmAction;
}

/** A queue with its dead-letter queue, and an alarm as soon as anything is dead-lettered. */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: props.visibilityTimeout,
      retentionPeriod: Duration.days(4),
      // SQS-managed keys: EventBridge Scheduler and the functions send without KMS grants.
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 5 },
    });
    this.deadLetterAlarm = this.deadLetterQueue
      .metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      })
      .createAlarm(this, 'DeadLetterAlarm', {
        alarmDescription: `Messages in the ${id} dead-letter queue: inspect, fix, then redrive`,
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    this.deadLetterAlarm.addAlarmAction(props.alarmAction);
  }
}
