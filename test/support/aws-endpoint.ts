import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ClientSettings } from '../../shared/adapters/aws-client-settings.js';
import { sqsClient } from '../../shared/adapters/sqs.js';

/**
 * A stand-in for one AWS API, for the tests of the adapters that call it through the SDK's
 * clients: it records what the SDK sends and answers what AWS would answer — or, told so, what
 * AWS answers when things go wrong (throttling, a 5xx, no answer at all, an answer that does not
 * parse).
 */

/** One request as an AWS endpoint received it. */
export interface ReceivedRequest {
  method: string;
  /** Its path (and query, if any), as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface EndpointAnswer {
  status: number;
  contentType: string;
  body: string;
  /** Other headers: a REST API's `x-amzn-errortype`. */
  headers?: Record<string, string>;
}

/** No answer at all: the connection stays open and silent (a hung service). */
export const silence = 'silence';

export const jsonAnswer = (status: number, body: unknown): EndpointAnswer => ({
  status,
  contentType: 'application/x-amz-json-1.0',
  body: JSON.stringify(body),
});

export const xmlAnswer = (status: number, body: string): EndpointAnswer => ({
  status,
  contentType: 'text/xml',
  body,
});

/** What SNS answers a Publish it takes. */
export const snsPublished = (messageId = randomUUID()): EndpointAnswer =>
  xmlAnswer(
    200,
    `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${messageId}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
  );

/** What SES answers a SendEmail it takes. */
export const sesSent = (messageId = randomUUID()): EndpointAnswer =>
  xmlAnswer(
    200,
    `<SendEmailResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><SendEmailResult><MessageId>${messageId}</MessageId></SendEmailResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></SendEmailResponse>`,
  );

/**
 * An error as SNS or SES (the query protocol) answers one; `message` is XML text, entities
 * escaped.
 */
export const queryRefusal = (status: number, code: string, message: string): EndpointAnswer =>
  xmlAnswer(
    status,
    `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );

/** What Scheduler answers a CreateSchedule it takes. */
export const scheduleCreated = (scheduleArn: string): EndpointAnswer => ({
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify({ ScheduleArn: scheduleArn }),
});

/** An error as a REST-JSON API (Scheduler) answers one: named by its x-amzn-errortype header. */
export const restJsonRefusal = (status: number, type: string, message: string): EndpointAnswer => ({
  status,
  contentType: 'application/json',
  headers: {
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.chronos/`,
  },
  body: JSON.stringify({ Message: message }),
});

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** What SQS answers a SendMessage or SendMessageBatch it takes whole. */
export function sqsAnswer({ headers, body }: ReceivedRequest): EndpointAnswer {
  const input = JSON.parse(body) as {
    MessageBody?: string;
    Entries?: { Id: string; MessageBody: string }[];
  };
  const sent = (text: string) => ({ MessageId: randomUUID(), MD5OfMessageBody: md5(text) });
  return headers['x-amz-target'] === 'AmazonSQS.SendMessageBatch'
    ? jsonAnswer(200, {
        Successful: (input.Entries ?? []).map((entry) => ({
          Id: entry.Id,
          ...sent(entry.MessageBody),
        })),
      })
    : jsonAnswer(200, sent(input.MessageBody ?? ''));
}

/** The messages of the SendMessage and SendMessageBatch requests `requests` hold, in order. */
export function sqsInputs(requests: ReceivedRequest[]): Record<string, unknown>[] {
  return requests.map(({ body }) => JSON.parse(body) as Record<string, unknown>);
}

/** The request id every answer of a recording endpoint carries, as AWS's do. */
export const requestIdOf = (sequence: number) => `stand-in-request-${sequence}`;

/**
 * A stand-in for an AWS API's endpoint (the clients' `endpoint`): records each request and
 * answers what `answers` holds next, else what `otherwise` makes of the request. Every answer
 * carries a request id (`x-amzn-RequestId`: `requestIdOf(n)` for the n-th request, from 1).
 */
export class RecordingAwsEndpoint {
  readonly requests: ReceivedRequest[] = [];
  answers: (EndpointAnswer | typeof silence)[] = [];
  /** `http://127.0.0.1:<port>`, once started. */
  url = '';
  private server: Server | undefined;
  private received = 0;

  constructor(
    private readonly otherwise: (request: ReceivedRequest) => EndpointAnswer = () =>
      jsonAnswer(200, {}),
  ) {}

  async start(): Promise<string> {
    this.server = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const request = {
          method: incoming.method ?? '',
          url: incoming.url ?? '',
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString(),
        };
        this.requests.push(request);
        this.received += 1;
        const answer = this.answers.shift() ?? this.otherwise(request);
        if (answer === silence) return;
        const { status, contentType, body, headers } = answer;
        outgoing.writeHead(status, {
          'content-type': contentType,
          'x-amzn-requestid': requestIdOf(this.received),
          ...headers,
        });
        outgoing.end(body);
      });
    });
    await new Promise<void>((listening) => this.server!.listen(0, '127.0.0.1', listening));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Forgets what was received and what was to be answered. */
  reset(): void {
    this.requests.length = 0;
    this.answers = [];
    this.received = 0;
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((closed) => (this.server ? this.server.close(() => closed()) : closed()));
  }
}

/**
 * A recording endpoint for the tests of one file: listening before them (its `url` set), its
 * requests and queued answers cleared before each, closed after them.
 */
export function useRecordingEndpoint(
  otherwise?: (request: ReceivedRequest) => EndpointAnswer,
): RecordingAwsEndpoint {
  const endpoint = new RecordingAwsEndpoint(otherwise);
  beforeAll(() => endpoint.start());
  afterAll(() => endpoint.close());
  beforeEach(() => endpoint.reset());
  return endpoint;
}

/**
 * Attempt bounds short enough for a test that waits for a timeout: the SDK's client and handler
 * as the service builds them, only quicker to give up — yet long enough that a loaded machine's
 * slow answer is not taken for silence (at 500 ms one was, and the retry met the next answer).
 */
export const quickTimeouts: ClientSettings = { connectionTimeoutMs: 1500, silenceTimeoutMs: 1500 };

/**
 * An SQS adapter of a test file on a recording SQS (answering as SQS would): `adapterOf` makes
 * it, before the tests, for a queue whose URL names the stand-in, with the SQS client the service
 * builds pointed at it.
 */
export function useRecordingQueue<Adapter>(
  queueName: string,
  adapterOf: (client: SQSClient, queueUrl: string) => Adapter,
  settings: ClientSettings = {},
): { endpoint: RecordingAwsEndpoint; queueUrl: string; queue: Adapter } {
  const endpoint = useRecordingEndpoint(sqsAnswer);
  const recording = { endpoint, queueUrl: '', queue: undefined as Adapter };
  beforeAll(() => {
    recording.queueUrl = `${endpoint.url}/123456789012/${queueName}`;
    recording.queue = adapterOf(
      sqsClient({ endpoint: endpoint.url, ...settings }),
      recording.queueUrl,
    );
  });
  return recording;
}
