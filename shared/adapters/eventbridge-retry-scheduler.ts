import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { required } from '../config.js';
import type { RetryScheduler } from '../domain/webhooks/ports.js';
import { deliveryQueueCodec } from './attempt-message.js';
import {
  type ClientSettings,
  clientSettings,
  signingWithOneSigner,
} from './aws-client-settings.js';

export interface SchedulerSettings {
  groupName: string;
  /** The delivery queue, which the schedule sends the attempt message to. */
  queueArn: string;
  /** The role EventBridge Scheduler assumes to call sqs:SendMessage on the queue. */
  roleArn: string;
}

/**
 * An EventBridge Scheduler client as the service builds it (aws-client-settings.ts). Its retries
 * are safe: a schedule's name follows from its minute, so a repeated CreateSchedule that had
 * acted meets ConflictException, which is "already scheduled".
 */
export const schedulerClient = (settings?: ClientSettings): SchedulerClient =>
  signingWithOneSigner(new SchedulerClient(clientSettings(settings)));

/** `at()` takes a UTC date-time without zone or fraction: yyyy-mm-ddThh:mm:ss. */
const atExpression = (at: Date) => `at(${at.toISOString().slice(0, 19)})`;

/** A due minute's schedule name: `due-<yyyymmddhhmm>` (UTC), the same for every caller. */
export const wakeScheduleName = (dueMinute: number): string =>
  `due-${new Date(dueMinute).toISOString().slice(0, 16).replace(/[-T:]/g, '')}`;

/**
 * The retry ladder's wake-ups, as EventBridge Scheduler one-time schedules: one per due minute,
 * named after it, that put the minute's `LadderWake` on the delivery queue and delete themselves
 * after firing. Scheduling a minute twice is a no-op (ConflictException).
 */
export class EventBridgeRetryScheduler implements RetryScheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly settings: SchedulerSettings,
  ) {}

  async wakeAt(dueMinute: number): Promise<void> {
    try {
      await this.client.send(
        new CreateScheduleCommand({
          Name: wakeScheduleName(dueMinute),
          GroupName: this.settings.groupName,
          ScheduleExpression: atExpression(new Date(dueMinute)),
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: {
            Arn: this.settings.queueArn,
            RoleArn: this.settings.roleArn,
            Input: deliveryQueueCodec.encode({ dueMinute }),
            // The scheduler's own retries if SQS is briefly unavailable; the sweeper backs it up.
            RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
          },
        }),
      );
    } catch (error) {
      if (error instanceof Error && error.name === 'ConflictException') return;
      throw error;
    }
  }
}

let schedulerInstance: RetryScheduler | undefined;

/**
 * The retry scheduler of this process: EventBridge Scheduler (SCHEDULER_GROUP_NAME,
 * DELIVERY_QUEUE_ARN, SCHEDULER_ROLE_ARN) unless a stand-in was installed.
 */
export function retryScheduler(): RetryScheduler {
  schedulerInstance ??= new EventBridgeRetryScheduler(schedulerClient(), {
    groupName: required('SCHEDULER_GROUP_NAME'),
    queueArn: required('DELIVERY_QUEUE_ARN'),
    roleArn: required('SCHEDULER_ROLE_ARN'),
  });
  return schedulerInstance;
}

export function useRetryScheduler(replacement: RetryScheduler): void {
  schedulerInstance = replacement;
}
