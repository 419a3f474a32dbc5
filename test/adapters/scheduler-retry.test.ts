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
const dueMinute = Date.parse('2026-03-01T12:34:00Z');

describe('the EventBridge retry scheduler', () => {
  it("creates one one-time at() schedule per due minute, named after it, that sends the minute's wake-up to the queue and deletes itself", async () => {
    await retries().wakeAt(dueMinute);

    const created = endpoint.requests.splice(0).map(({ url, body }) => ({
      url,
      input: JSON.parse(body) as Record<string, unknown>,
    }));
    expect(created).toEqual([
      {
        url: '/schedules/due-202603011234',
        input: {
          GroupName: 'webhook-retries',
          ScheduleExpression: 'at(2026-03-01T12:34:00)',
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          ClientToken: expect.any(String),
          Target: {
            Arn: settings.queueArn,
            RoleArn: settings.roleArn,
            Input: JSON.stringify({ due_minute: '2026-03-01T12:34:00.000Z' }),
            RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
          },
        },
      },
    ]);
  });

  it('treats an existing schedule for the same minute as already scheduled', async () => {
    endpoint.answers = [restJsonRefusal(409, 'ConflictException', 'exists')];
    await expect(retries().wakeAt(dueMinute)).resolves.toBeUndefined();
  });

  it('passes other failures on', async () => {
    endpoint.answers = [restJsonRefusal(400, 'ValidationException', 'Invalid Schedule Expression')];
    await expect(retries().wakeAt(dueMinute)).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });
});
