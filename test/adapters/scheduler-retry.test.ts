import {
  ConflictException,
  CreateScheduleCommand,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeRetryScheduler } from '../../shared/adapters/eventbridge-retry-scheduler.js';

const scheduler = mockClient(SchedulerClient);
const settings = {
  groupName: 'webhook-retries',
  queueArn: 'arn:aws:sqs:us-east-1:123456789012:deliveries',
  roleArn: 'arn:aws:iam::123456789012:role/scheduler-to-sqs',
};
const retries = new EventBridgeRetryScheduler(
  new SchedulerClient({ region: 'us-east-1' }),
  settings,
);
const deliveryId = 'dlv_abcdefghijklmnopqrst';

beforeEach(() => scheduler.reset());

describe('the EventBridge retry scheduler', () => {
  it('creates a one-time at() schedule that sends the attempt to the queue and deletes itself', async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });

    await retries.scheduleAt({ deliveryId, attempt: 4 }, new Date('2026-03-01T12:34:56.789Z'));

    expect(scheduler.commandCalls(CreateScheduleCommand).map((call) => call.args[0].input)).toEqual(
      [
        {
          Name: `${deliveryId}-attempt-4`,
          GroupName: 'webhook-retries',
          ScheduleExpression: 'at(2026-03-01T12:34:56)',
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: {
            Arn: settings.queueArn,
            RoleArn: settings.roleArn,
            Input: JSON.stringify({ delivery_id: deliveryId, attempt: 4 }),
            RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
          },
        },
      ],
    );
  });

  it('treats an existing schedule for the same attempt as already scheduled', async () => {
    scheduler
      .on(CreateScheduleCommand)
      .rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    await expect(
      retries.scheduleAt({ deliveryId, attempt: 5 }, new Date('2026-03-02T00:00:00Z')),
    ).resolves.toBeUndefined();
  });

  it('passes other failures on', async () => {
    scheduler.on(CreateScheduleCommand).rejects(new Error('throttled'));
    await expect(
      retries.scheduleAt({ deliveryId, attempt: 3 }, new Date('2026-03-02T00:00:00Z')),
    ).rejects.toThrow('throttled');
  });
});
