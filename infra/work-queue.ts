import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { workQueueSizes } from '../shared/deployment-sizes.js';
import { withRunbook } from './runbooks.js';

export interface WorkQueueProps {
  /** At least six times the consumer's timeout (AWS's advice for Lambda event sources). */
  visibilityTimeout: Duration;
  /** Receives before a message moves to the dead-letter queue. @default workQueueSizes.maxReceiveCount */
  maxReceiveCount?: number;
  /**
   * How old the oldest message may grow before the backlog alarm fires: longer than any delay
   * the queue's senders put on a message, shorter than the wait its work can bear.
   */
  maxMessageAge: Duration;
  /** Where the alarms report. */
  alarmAction: cloudwatch.IAlarmAction;
}

/**
 * A queue with its dead-letter queue, an alarm as soon as anything is dead-lettered, and one when
 * the oldest message waits too long (workers failing, throttled, or outpaced).
 */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly deadLetterAlarm: cloudwatch.Alarm;
  readonly backlogAlarm: cloudwatch.Alarm;

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
      deadLetterQueue: {
        queue: this.deadLetterQueue,
        maxReceiveCount: props.maxReceiveCount ?? workQueueSizes.maxReceiveCount,
      },
    });
    this.deadLetterAlarm = this.deadLetterQueue
      .metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      })
      .createAlarm(this, 'DeadLetterAlarm', {
        alarmDescription: withRunbook(
          `Messages in the ${id} dead-letter queue: inspect, fix, then redrive`,
          'dead-letters',
        ),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    this.deadLetterAlarm.addAlarmAction(props.alarmAction);
    this.backlogAlarm = this.queue
      .metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' })
      .createAlarm(this, 'BacklogAlarm', {
        alarmDescription: withRunbook(
          `The oldest message of the ${id} queue has waited over ${props.maxMessageAge.toHumanString()}`,
          'queue-backlog',
        ),
        threshold: props.maxMessageAge.toSeconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    this.backlogAlarm.addAlarmAction(props.alarmAction);
  }
}
