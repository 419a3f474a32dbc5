import { createHash } from 'node:crypto';
import {
  type AwsClientOptions,
  AwsError,
  jsonAnswerOf,
  SignedAwsClient,
} from './aws-signed-request.js';

/**
 * SQS's SendMessage and SendMessageBatch, the two calls the functions make, without the SDK's
 * client (with the SDK core it pulls in, ~180 KiB of every bundle that queues work, and most of
 * `otp/send-otp`'s cold start above the DynamoDB floor: docs/performance.md). The protocol is
 * the SDK's today (@aws-sdk/client-sqs 3.x): AWS JSON 1.0, `X-Amz-Target: AmazonSQS.<operation>`,
 * with the `x-amzn-query-mode` header the SDK sends.
 *
 * As the SDK does: a call goes to its queue URL's origin unless an endpoint is given (the SDK
 * takes the queue URL over AWS_ENDPOINT_URL too, so the queue URLs a stand-in hands out are what
 * points the functions at it); the MD5 SQS answers for each message body is checked, and a
 * mismatch throws; throttling, 5xx and network failures are retried (aws-signed-request.ts).
 */

export interface SendMessageInput {
  QueueUrl: string;
  MessageBody: string;
  DelaySeconds?: number;
}

export interface SendMessageBatchRequestEntry {
  Id: string;
  MessageBody: string;
  DelaySeconds?: number;
}

export interface SendMessageBatchInput {
  QueueUrl: string;
  Entries: SendMessageBatchRequestEntry[];
}

interface SentMessage {
  MessageId?: string;
  MD5OfMessageBody?: string;
}

export interface BatchResultErrorEntry {
  Id: string;
  SenderFault: boolean;
  Code: string;
  Message?: string;
}

export interface SendMessageBatchOutput {
  Successful?: (SentMessage & { Id: string })[];
  Failed?: BatchResultErrorEntry[];
}

const sqsService = {
  title: 'SQS',
  signingName: 'sqs',
  // The queue URL names the endpoint (see above); only an explicit `endpoint` overrides it.
  endpointVariables: [],
  retryable: new Set([
    'RequestThrottled',
    'ThrottlingException',
    'KmsThrottled',
    'InternalError',
    'ServiceUnavailable',
  ]),
};

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export class SqsClient {
  private readonly transport: SignedAwsClient;
  private readonly endpoint: URL | undefined;

  constructor(options: AwsClientOptions = {}) {
    this.transport = new SignedAwsClient(sqsService, options);
    this.endpoint = options.endpoint === undefined ? undefined : new URL(options.endpoint);
  }

  /** Throws AwsError when SQS refuses the message, Error when its checksum does not match. */
  async sendMessage(input: SendMessageInput): Promise<SentMessage> {
    const output = (await this.call('SendMessage', input)) as SentMessage;
    if (output.MD5OfMessageBody !== md5(input.MessageBody)) throw new Error('InvalidChecksumError');
    return output;
  }

  /**
   * Entries SQS could not take are in `Failed` (the call itself succeeds); throws when the
   * checksum of one it took does not match, as the SDK does.
   */
  async sendMessageBatch(input: SendMessageBatchInput): Promise<SendMessageBatchOutput> {
    const output = (await this.call('SendMessageBatch', input)) as SendMessageBatchOutput;
    const bodies = new Map(input.Entries.map((entry) => [entry.Id, entry.MessageBody]));
    const mismatched = (output.Successful ?? []).filter(
      (sent) => bodies.has(sent.Id) && sent.MD5OfMessageBody !== md5(bodies.get(sent.Id)!),
    );
    if (mismatched.length > 0) {
      throw new Error(
        `Invalid MD5 checksum on messages: ${mismatched.map((sent) => sent.MessageId).join(', ')}`,
      );
    }
    return output;
  }

  private call(operation: string, input: { QueueUrl: string }): Promise<unknown> {
    return this.transport.send(
      {
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `AmazonSQS.${operation}`,
          // SQS's JSON protocol keeps its older query protocol's error codes alongside.
          'x-amzn-query-mode': 'true',
        },
        body: JSON.stringify(input),
        what: operation,
        endpoint: this.endpoint ?? new URL(new URL(input.QueueUrl).origin),
      },
      (response) =>
        jsonAnswerOf(
          operation,
          response,
          (name, message, status) => new AwsError(name, message, status),
        ),
    );
  }
}
