import {
  CreateScheduleCommand,
  SchedulerClient as SdkSchedulerClient,
} from '@aws-sdk/client-scheduler';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ConflictException,
  SchedulerClient,
  SchedulerError,
} from '../../shared/adapters/scheduler-client.js';
import {
  callsThroughEndpointVariables,
  exampleCredentials as credentials,
  protocolOf,
  type ReceivedRequest,
  restJsonRefusal as refusal,
  scheduleCreated,
  sdkAuthorization,
  useRecordingEndpoint,
} from '../support/aws-endpoint.js';

const region = 'eu-west-1';
const scheduleArn = 'arn:aws:scheduler:eu-west-1:123456789012:schedule/retries/dlv_1-attempt-4';
const endpoint = useRecordingEndpoint(() => scheduleCreated(scheduleArn));
let client: SchedulerClient;

beforeAll(() => {
  client = new SchedulerClient({ endpoint: endpoint.url, region, credentials });
});

const schedule = {
  Name: 'dlv_abcdefghijklmnopqrst-attempt-4',
  GroupName: 'webhook-retries',
  ScheduleExpression: 'at(2026-03-01T12:34:56)',
  ScheduleExpressionTimezone: 'UTC',
  FlexibleTimeWindow: { Mode: 'OFF' as const },
  ActionAfterCompletion: 'DELETE' as const,
  Target: {
    Arn: 'arn:aws:sqs:eu-west-1:123456789012:deliveries',
    RoleArn: 'arn:aws:iam::123456789012:role/scheduler-to-sqs',
    Input: '{"delivery_id":"dlv_é","attempt":4}',
    RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
  },
};

/** The idempotency token a CreateSchedule carries: fresh for each call. */
const tokenOf = ({ body }: ReceivedRequest) =>
  (JSON.parse(body) as { ClientToken: string }).ClientToken;

/** The protocol of a request, its per-call idempotency token set aside. */
const withoutToken = (request: ReceivedRequest) => {
  const protocol = protocolOf(request);
  return { ...protocol, body: protocol.body.replace(tokenOf(request), '<token>') };
};

describe('the Scheduler client', () => {
  it('creates a schedule as the AWS SDK does, signed as its signer would', async () => {
    const sdk = new SdkSchedulerClient({ endpoint: endpoint.url, region, credentials });
    await sdk.send(new CreateScheduleCommand(schedule));
    sdk.destroy();
    const [reference] = endpoint.requests.splice(0);

    const output = await client.createSchedule(schedule);

    const [ours] = endpoint.requests.splice(0);
    expect(withoutToken(ours!)).toEqual(withoutToken(reference!));
    expect(protocolOf(ours!)).toMatchObject({
      method: 'POST',
      url: `/schedules/${schedule.Name}`,
      scope: 'eu-west-1/scheduler/aws4_request',
    });
    expect(tokenOf(ours!)).toMatch(/^[0-9a-f-]{36}$/);
    expect(ours!.headers.authorization).toBe(
      await sdkAuthorization(ours!, { service: 'scheduler', region, credentials }),
    );
    expect(output.ScheduleArn).toBe(scheduleArn);
  });

  it('names a taken name ConflictException, as the SDK does, and does not retry it', async () => {
    endpoint.answers = [
      refusal(409, 'ConflictException', `Schedule ${schedule.Name} already exists.`),
    ];

    const taken = await client.createSchedule(schedule).catch((error: unknown) => error);

    expect(taken).toBeInstanceOf(ConflictException);
    expect(taken).toMatchObject({
      name: 'ConflictException',
      message: `Schedule ${schedule.Name} already exists.`,
      httpStatus: 409,
    });
    expect(endpoint.requests.splice(0)).toHaveLength(1);
  });

  it('retries throttling and server errors with the same idempotency token, then gives up naming the error', async () => {
    endpoint.answers = [
      refusal(429, 'ThrottlingException', 'Rate exceeded'),
      refusal(500, 'InternalServerException', 'boom'),
    ];
    await client.createSchedule(schedule);
    const attempts = endpoint.requests.splice(0);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map(tokenOf)).size).toBe(1);

    endpoint.answers = [refusal(400, 'ValidationException', 'Invalid Schedule Expression')];
    const refused = client.createSchedule(schedule);
    await expect(refused).rejects.toBeInstanceOf(SchedulerError);
    await expect(refused).rejects.toMatchObject({ name: 'ValidationException', httpStatus: 400 });
    expect(endpoint.requests.splice(0)).toHaveLength(1);

    endpoint.answers = Array.from({ length: 3 }, () =>
      refusal(500, 'InternalServerException', 'boom'),
    );
    const failure = client.createSchedule(schedule);
    await expect(failure).rejects.toMatchObject({ name: 'InternalServerException' });
    expect(endpoint.requests.splice(0)).toHaveLength(3);
  });

  it('goes where AWS_ENDPOINT_URL_SCHEDULER or AWS_ENDPOINT_URL points, with the Lambda environment’s credentials', async () => {
    const { requests, lambdaSignature } = await callsThroughEndpointVariables(
      endpoint,
      'AWS_ENDPOINT_URL_SCHEDULER',
      'scheduler',
      () => new SchedulerClient().createSchedule(schedule),
    );
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers.authorization).toBe(lambdaSignature);
  });
});
