import { Duration, RemovalPolicy } from 'aws-cdk-lib';
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
}

/**
 * A queue with its dead-letter queue, in the data stack: both are retained, since the messages in
 * them are work not done yet. Their alarms live with the other alarms (`addWorkQueueAlarms`), so
 * changing one never touches the stack that holds the queues.
 */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly maxMessageAge: Duration;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.maxMessageAge = props.maxMessageAge;
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
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
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}

/**
 * A work queue's alarms: as soon as anything is dead-lettered, and when the oldest message waits
 * too long (workers failing, throttled, or outpaced).
 */
export function addWorkQueueAlarms(
  scope: Construct,
  name: string,
  work: WorkQueue,
  alarmAction: cloudwatch.IAlarmAction,
): void {
  work.deadLetterQueue
    .metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    })
    .createAlarm(scope, `${name}DeadLetterAlarm`, {
      alarmDescription: withRunbook(
        `Messages in the ${name} dead-letter queue: inspect, fix, then redrive`,
        'dead-letters',
      ),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    })
    .addAlarmAction(alarmAction);
  work.queue
    .metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' })
    .createAlarm(scope, `${name}BacklogAlarm`, {
      alarmDescription: withRunbook(
        `The oldest message of the ${name} queue has waited over ${work.maxMessageAge.toHumanString()}`,
        'queue-backlog',
      ),
      threshold: work.maxMessageAge.toSeconds(),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    })
    .addAlarmAction(alarmAction);
}
