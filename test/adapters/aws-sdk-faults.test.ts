import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as login } from '../../functions/auth/login.js';
import {
  aroundDynamoCalls,
  dynamoClients,
  dynamoInUse,
  getItem,
  useDynamo,
} from '../../shared/adapters/dynamodb.js';
import {
  EventBridgeRetryScheduler,
  schedulerClient,
} from '../../shared/adapters/eventbridge-retry-scheduler.js';
import { SesMailer, sesClient } from '../../shared/adapters/ses-mailer.js';
import { SnsSmsSender, snsClient } from '../../shared/adapters/sns-sms-sender.js';
import { sqsClient } from '../../shared/adapters/sqs.js';
import { SqsInboundQueue } from '../../shared/adapters/sqs-inbound-queue.js';
import { Refusal } from '../../shared/domain/errors.js';
import { responseForError } from '../../shared/http/responses.js';
import { jsonLineOf } from '../../shared/log.js';
import {
  type EndpointAnswer,
  jsonAnswer,
  queryRefusal,
  quickTimeouts,
  requestIdOf,
  restJsonRefusal,
  scheduleCreated,
  sesSent,
  silence,
  snsPublished,
  sqsAnswer,
  useRecordingEndpoint,
  xmlAnswer,
} from '../support/aws-endpoint.js';
import { invoke, restEvent } from '../support/events.js';
import { type RecordedLogs, recordLogs } from '../support/log-recorder.js';

/**
 * Each AWS client of the service, as the service builds it (the SDK's client with the lean
 * settings of shared/adapters/aws-client-settings.ts, shorter attempt bounds only), fed what AWS
 * answers when things go wrong by a stand-in: throttling that then lets the call through, a 5xx
 * that lasts, no answer at all, and an answer that does not parse. Each test checks what the
 * service promises for it: the call retried (and made once), a 500 in the envelope with AWS's
 * request id on the log line (never a 4xx, never a hang), or a refusal in the domain's words.
 */

let logs: RecordedLogs;
beforeEach(() => {
  logs = recordLogs();
});
afterEach(() => logs.stop());

/** The log line of the request the API edge answered 500, as CloudWatch Logs receives it. */
function failureLine(): string {
  const record = logs.records.find((candidate) => candidate.message === 'unhandled error');
  expect(record, 'the failure is logged').toBeDefined();
  return jsonLineOf(record!);
}

/** What the API edge makes of `error`: the 500 envelope, its log line naming AWS's request id. */
function expectInternalError(error: unknown, awsRequestId: string): void {
  const response = responseForError(error, 'req-faults');
  expect(response.statusCode).toBe(500);
  expect(JSON.parse(response.body).error.code).toBe('internal_error');
  expect(failureLine()).toContain(`"aws_request_id":"${awsRequestId}"`);
}

const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );

const dynamoError = (status: number, type: string, message = type): EndpointAnswer =>
  jsonAnswer(status, { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message });

describe('DynamoDB through the DocumentClient', () => {
  const aws = useRecordingEndpoint();
  let local: ReturnType<typeof dynamoInUse>;
  const key = { pk: 'USER#usr_faults', sk: 'PROFILE' };
  const found = jsonAnswer(200, { Item: { pk: { S: key.pk }, sk: { S: key.sk }, n: { N: '1' } } });

  beforeAll(() => {
    process.env.TABLE_NAME = 'faults';
  });
  /** Calls of the test's clients still running, their retries included. */
  let running = 0;

  beforeEach(() => {
    local = dynamoInUse();
    const clients = dynamoClients({ endpoint: aws.url, ...quickTimeouts });
    aroundDynamoCalls(async (_call, next) => {
      running += 1;
      try {
        return await next();
      } finally {
        running -= 1;
      }
    }, clients);
    useDynamo(clients);
  });
  // A request may answer before all its calls end (login's second read, when the first failed):
  // its late attempts would take the next test's answers.
  afterEach(async () => {
    await vi.waitFor(() => expect(running, 'calls still running').toBe(0), { timeout: 20_000 });
    useDynamo(local);
  });

  it('backs off through throttling and answers once DynamoDB lets the read through', async () => {
    // Three refusals in a row on a hot key: DynamoDB's client makes four attempts.
    aws.answers = [
      dynamoError(400, 'ProvisionedThroughputExceededException'),
      dynamoError(400, 'ThrottlingException'),
      dynamoError(400, 'ThrottlingException'),
      found,
    ];

    await expect(getItem(key)).resolves.toEqual({ ...key, n: 1 });
    expect(aws.requests).toHaveLength(4);
  });

  it('answers an API request the 500 envelope when DynamoDB keeps failing, naming its request id in the log', async () => {
    // Every call fails, however many the request makes.
    aws.answers = Array.from({ length: 40 }, () => dynamoError(500, 'InternalServerError'));

    const answer = await invoke(
      login,
      restEvent({
        resource: '/auth/login',
        path: '/auth/login',
        body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery' }),
      }),
    );

    expect(answer.status).toBe(500);
    expect(answer.body.error.code).toBe('internal_error');
    expect(failureLine()).toMatch(/"aws_request_id":"stand-in-request-\d+"/);
    expect(failureLine()).toContain('"aws_attempts":4');
  });

  it('tries again after an attempt DynamoDB never answered', async () => {
    aws.answers = [silence, found];

    await expect(getItem(key)).resolves.toEqual({ ...key, n: 1 });
    expect(aws.requests).toHaveLength(2);
  });

  it('fails an answer it cannot read, as a 500, not a crash or a 4xx', async () => {
    aws.answers = [{ status: 200, contentType: 'application/x-amz-json-1.0', body: '{"Item": {' }];

    const error = await failureOf(getItem(key));

    expectInternalError(error, requestIdOf(1));
  });
});

describe('SQS', () => {
  const aws = useRecordingEndpoint(sqsAnswer);
  const queueUrl = () => `${aws.url}/123456789012/inbound`;
  const queue = () =>
    new SqsInboundQueue(sqsClient({ endpoint: aws.url, ...quickTimeouts }), queueUrl());
  const event = { source: 'gateway-b' as const, eventId: 'evt_faults' };
  const sqsError = (status: number, type: string): EndpointAnswer =>
    jsonAnswer(status, { __type: `com.amazonaws.sqs#${type}`, message: type });

  it('backs off through throttling and queues the message once it is let through', async () => {
    aws.answers = [sqsError(400, 'RequestThrottled')];

    await queue().enqueue(event);

    expect(aws.requests).toHaveLength(2);
    expect(aws.requests.map(({ body }) => JSON.parse(body).MessageBody)).toEqual([
      '{"source":"gateway-b","event_id":"evt_faults"}',
      '{"source":"gateway-b","event_id":"evt_faults"}',
    ]);
  });

  it('fails after its attempts when SQS keeps failing: the caller answers 500', async () => {
    aws.answers = Array.from({ length: 3 }, () => sqsError(500, 'InternalError'));

    const error = await failureOf(queue().enqueue(event));

    expect(aws.requests).toHaveLength(3);
    expectInternalError(error, requestIdOf(3));
  });

  it('tries again after an attempt SQS never answered', async () => {
    aws.answers = [silence];

    await queue().enqueue(event);

    expect(aws.requests).toHaveLength(2);
  });

  it('refuses an answer whose checksum does not match the message sent', async () => {
    aws.answers = [jsonAnswer(200, { MessageId: randomUUID(), MD5OfMessageBody: '0'.repeat(32) })];

    const error = await failureOf(queue().enqueue(event));

    expect(error).toMatchObject({ message: 'InvalidChecksumError' });
    expect(responseForError(error, 'req-faults').statusCode).toBe(500);
  });
});

describe('SNS, which texts', () => {
  const aws = useRecordingEndpoint(() => snsPublished());
  const sender = () =>
    new SnsSmsSender(snsClient({ endpoint: aws.url, ...quickTimeouts }), undefined);
  const text = { to: '+14155550123', text: '123456 is your code' };

  it('backs off through throttling and texts once SNS lets the Publish through', async () => {
    aws.answers = [queryRefusal(429, 'Throttled', 'Rate exceeded')];

    await sender().send(text);

    expect(aws.requests).toHaveLength(2);
  });

  it('fails after its attempts when SNS keeps failing: a 500, not a refusal', async () => {
    aws.answers = Array.from({ length: 3 }, () => queryRefusal(500, 'InternalError', 'boom'));

    const error = await failureOf(sender().send(text));

    expect(error).not.toBeInstanceOf(Refusal);
    expect(aws.requests).toHaveLength(3);
    expectInternalError(error, requestIdOf(3));
  });

  it('does not publish again after an attempt SNS never answered: that text may be out', async () => {
    aws.answers = [silence];

    const error = await failureOf(sender().send(text));

    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(aws.requests).toHaveLength(1);
  });

  it('fails an answer it cannot read', async () => {
    aws.answers = [xmlAnswer(200, '<PublishResponse><PublishResult>')];

    const error = await failureOf(sender().send(text));

    expect(error).not.toBeInstanceOf(Refusal);
    expectInternalError(error, requestIdOf(1));
  });

  it('says a number SNS will not text is refused, in the domain’s words', async () => {
    aws.answers = [queryRefusal(400, 'InvalidParameter', 'Invalid parameter: PhoneNumber')];

    const error = await failureOf(sender().send(text));

    expect(error).toBeInstanceOf(Refusal);
    expect(error).toMatchObject({ reason: 'smsUndeliverable' });
    expect(aws.requests).toHaveLength(1);
  });
});

describe('SES, which mails', () => {
  const aws = useRecordingEndpoint(() => sesSent());
  const mailer = () =>
    new SesMailer(sesClient({ endpoint: aws.url, ...quickTimeouts }), 'no-reply@example.com');
  const email = {
    to: 'ada@example.com',
    subject: 'Your code',
    text: '123456',
    html: '<b>123456</b>',
  };

  it('backs off through SES’s sending-rate refusal and mails once it is let through', async () => {
    aws.answers = [queryRefusal(400, 'Throttling', 'Maximum sending rate exceeded.')];

    await mailer().send(email);

    expect(aws.requests).toHaveLength(2);
  });

  it('fails after its attempts when SES keeps failing: the caller answers 500', async () => {
    aws.answers = Array.from({ length: 3 }, () => queryRefusal(503, 'ServiceUnavailable', 'down'));

    const error = await failureOf(mailer().send(email));

    expect(aws.requests).toHaveLength(3);
    expectInternalError(error, requestIdOf(3));
  });

  it('does not send again after an attempt SES never answered: that email may be out', async () => {
    aws.answers = [silence];

    const error = await failureOf(mailer().send(email));

    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(aws.requests).toHaveLength(1);
  });

  it('fails an answer it cannot read', async () => {
    aws.answers = [xmlAnswer(200, 'not xml at all')];

    const error = await failureOf(mailer().send(email));

    expectInternalError(error, requestIdOf(1));
  });
});

describe('EventBridge Scheduler', () => {
  const aws = useRecordingEndpoint(() =>
    scheduleCreated('arn:aws:scheduler:us-east-1:1:schedule/g/s'),
  );
  const scheduler = () =>
    new EventBridgeRetryScheduler(schedulerClient({ endpoint: aws.url, ...quickTimeouts }), {
      groupName: 'webhook-retries',
      queueArn: 'arn:aws:sqs:us-east-1:123456789012:deliveries',
      roleArn: 'arn:aws:iam::123456789012:role/scheduler',
    });
  const dueMinute = Date.parse('2026-03-01T12:00:00Z');

  it('backs off through throttling and schedules once it is let through', async () => {
    aws.answers = [restJsonRefusal(429, 'ThrottlingException', 'Rate exceeded')];

    await scheduler().wakeAt(dueMinute);

    expect(aws.requests).toHaveLength(2);
  });

  it('fails after its attempts when Scheduler keeps failing: the sweeper takes the attempt', async () => {
    aws.answers = Array.from({ length: 3 }, () =>
      restJsonRefusal(500, 'InternalServerException', 'boom'),
    );

    const error = await failureOf(scheduler().wakeAt(dueMinute));

    expect(aws.requests).toHaveLength(3);
    expectInternalError(error, requestIdOf(3));
  });

  it('tries again after an attempt Scheduler never answered, the retry meeting the schedule made', async () => {
    aws.answers = [silence, restJsonRefusal(409, 'ConflictException', 'already exists')];

    await scheduler().wakeAt(dueMinute);

    expect(aws.requests).toHaveLength(2);
    // The same request both times: one idempotency token, one name.
    expect(aws.requests[1]!.body).toBe(aws.requests[0]!.body);
  });

  it('fails an answer it cannot read', async () => {
    aws.answers = [{ status: 200, contentType: 'application/json', body: '{"ScheduleArn":' }];

    const error = await failureOf(scheduler().wakeAt(dueMinute));

    expectInternalError(error, requestIdOf(1));
  });
});
