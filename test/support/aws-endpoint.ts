import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SqsClient } from '../../shared/adapters/sqs-client.js';

/** The credentials of AWS's SigV4 examples, with a session token as Lambda's have. */
export const exampleCredentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token-example',
};

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

/**
 * A stand-in for an AWS API's endpoint (the clients' `endpoint`): records each request and
 * answers what `answers` holds next, else what `otherwise` makes of the request.
 */
export class RecordingAwsEndpoint {
  readonly requests: ReceivedRequest[] = [];
  answers: EndpointAnswer[] = [];
  /** `http://127.0.0.1:<port>`, once started. */
  url = '';
  private server: Server | undefined;

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
        const { status, contentType, body, headers } =
          this.answers.shift() ?? this.otherwise(request);
        outgoing.writeHead(status, { 'content-type': contentType, ...headers });
        outgoing.end(body);
      });
    });
    await new Promise<void>((listening) => this.server!.listen(0, '127.0.0.1', listening));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
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
  beforeEach(() => {
    endpoint.requests.length = 0;
    endpoint.answers = [];
  });
  return endpoint;
}

/**
 * An SQS adapter of a test file on a recording SQS (answering as SQS would): `adapterOf` makes
 * it, before the tests, for a queue whose URL names the stand-in (SQS calls go to the queue
 * URL's host).
 */
export function useRecordingQueue<Adapter>(
  queueName: string,
  adapterOf: (client: SqsClient, queueUrl: string) => Adapter,
): { endpoint: RecordingAwsEndpoint; queueUrl: string; queue: Adapter } {
  const endpoint = useRecordingEndpoint(sqsAnswer);
  const recording = { endpoint, queueUrl: '', queue: undefined as Adapter };
  beforeAll(() => {
    recording.queueUrl = `${endpoint.url}/123456789012/${queueName}`;
    recording.queue = adapterOf(
      new SqsClient({ region: 'us-east-1', credentials: exampleCredentials }),
      recording.queueUrl,
    );
  });
  return recording;
}

/** The credentials Lambda gives a function in its environment (a role's: with a session token). */
export const lambdaCredentials = {
  accessKeyId: 'ASIALAMBDA',
  secretAccessKey: 'lambda-secret',
  sessionToken: 'lambda-session',
};

/**
 * Runs `run` with the environment Lambda gives a function in `region`, plus `more`, and puts the
 * process's environment back afterwards.
 */
export async function inLambdaEnvironment(
  region: string,
  more: Record<string, string>,
  run: () => Promise<unknown>,
): Promise<void> {
  const saved = { ...process.env };
  Object.assign(process.env, {
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: lambdaCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: lambdaCredentials.secretAccessKey,
    AWS_SESSION_TOKEN: lambdaCredentials.sessionToken,
    ...more,
  });
  try {
    await run();
  } finally {
    process.env = saved;
  }
}

/**
 * Makes `call` twice in the environment Lambda gives a function (ap-southeast-2): with `variable`
 * (e.g. AWS_ENDPOINT_URL_SES) naming `endpoint` and AWS_ENDPOINT_URL a closed port, then with
 * AWS_ENDPOINT_URL alone naming it. Hands back the requests `endpoint` received — both, when the
 * client honours both variables — and the signature the SDK's signer makes for the first with
 * Lambda's credentials, under `service`'s signing name.
 */
export async function callsThroughEndpointVariables(
  endpoint: RecordingAwsEndpoint,
  variable: string,
  service: string,
  call: () => Promise<unknown>,
): Promise<{ requests: ReceivedRequest[]; lambdaSignature: string | undefined }> {
  const region = 'ap-southeast-2';
  await inLambdaEnvironment(
    region,
    { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', [variable]: endpoint.url },
    call,
  );
  await inLambdaEnvironment(region, { AWS_ENDPOINT_URL: endpoint.url }, call);
  const requests = endpoint.requests.splice(0);
  const lambdaSignature =
    requests[0] &&
    (await sdkAuthorization(requests[0], { service, region, credentials: lambdaCredentials }));
  return { requests, lambdaSignature };
}

/** A request as its protocol has it: the body and the headers that are not per call or per client. */
export const protocolOf = ({ method, url, headers, body }: ReceivedRequest) => ({
  method,
  url,
  body,
  contentType: headers['content-type'],
  target: headers['x-amz-target'],
  queryMode: headers['x-amzn-query-mode'],
  token: headers['x-amz-security-token'],
  scope: /Credential=[^/]+\/\d{8}\/([^,]+),/.exec(String(headers.authorization))?.[1],
});

/** node:crypto as the SDK signer's hash (what @smithy/hash-node does). */
type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: Data) =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
class NodeSha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

/**
 * The Authorization header the AWS SDK's own SigV4 signer makes for `received`, signing the headers its Authorization header says it signed, at the time its X-Amz-Date says.
 */
export async function sdkAuthorization(
  received: ReceivedRequest,
  signer: {
    service: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  },
): Promise<string | undefined> {
  const { method, url, headers, body } = received;
  const signedNames = /SignedHeaders=([^,]+)/.exec(String(headers.authorization))?.[1] ?? '';
  const amzDate = String(headers['x-amz-date']);
  const signed = await new SignatureV4({ ...signer, sha256: NodeSha256 }).sign(
    {
      method,
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: url,
      query: {},
      headers: Object.fromEntries(
        signedNames.split(';').map((name) => [name, String(headers[name])]),
      ),
      body,
    },
    {
      signingDate: new Date(
        `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13)}`,
      ),
    },
  );
  return signed.headers.authorization;
}
