import { describe, expect, it } from 'vitest';
import {
  EventBridgeRetryScheduler,
  schedulerClient,
} from '../../shared/adapters/eventbridge-retry-scheduler.js';
import { restJsonRefusal, scheduleCreated, useRecordingEndpoint } from '../support/aws-endpoint.js';

const endpoint = useRecordingEndpoint(() => scheduleCreated('arn'));
const settings = {
  groupName: 'webhook-retries',
  queueArn: 'arn:aws:sqs:us-east-1:123456789012:deliveries',
  roleArn: 'arn:aws:iam::123456789012:role/scheduler-to-sqs',
};
const retries = () =>
  new EventBridgeRetryScheduler(schedulerClient({ endpoint: endpoint.url }), settings);
const deliveryId = 'dlv_abcdefghijklmnopqrst';

describe('the EventBridge retry scheduler', () => {
  it('creates a one-time at() schedule that sends the attempt to the queue and deletes itself', async () => {
    await retries().scheduleAt({ deliveryId, attempt: 4 }, new Date('2026-03-01T12:34:56.789Z'));

    const created = endpoint.requests.splice(0).map(({ url, body }) => ({
      url,
      input: JSON.parse(body) as Record<string, unknown>,
    }));
    expect(created).toEqual([
      {
        url: `/schedules/${deliveryId}-attempt-4`,
        input: {
          GroupName: 'webhook-retries',
          ScheduleExpression: 'at(2026-03-01T12:34:56)',
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          ClientToken: expect.any(String),
          Target: {
            Arn: settings.queueArn,
            RoleArn: settings.roleArn,
            Input: JSON.stringify({ delivery_id: deliveryId, attempt: 4 }),
            RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
          },
        },
      },
    ]);
  });

  it('treats an existing schedule for the same attempt as already scheduled', async () => {
    endpoint.answers = [restJsonRefusal(409, 'ConflictException', 'exists')];
    await expect(
      retries().scheduleAt({ deliveryId, attempt: 5 }, new Date('2026-03-02T00:00:00Z')),
    ).resolves.toBeUndefined();
  });

  it('passes other failures on', async () => {
    endpoint.answers = [restJsonRefusal(400, 'ValidationException', 'Invalid Schedule Expression')];
    await expect(
      retries().scheduleAt({ deliveryId, attempt: 3 }, new Date('2026-03-02T00:00:00Z')),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });
});
