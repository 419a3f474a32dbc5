import { createHash } from 'node:crypto';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AwsError } from '../../shared/adapters/aws-signed-request.js';
import { SqsClient } from '../../shared/adapters/sqs-client.js';
import {
  exampleCredentials as credentials,
  inLambdaEnvironment,
  jsonAnswer,
  lambdaCredentials,
  protocolOf,
  sdkAuthorization,
  sqsAnswer,
  useRecordingEndpoint,
} from '../support/aws-endpoint.js';

const region = 'eu-west-1';
const endpoint = useRecordingEndpoint(sqsAnswer);
const client = new SqsClient({ region, credentials });
let queueUrl = '';

beforeAll(() => {
  // SQS sends each call to its queue URL's host: the queue URLs name the stand-in.
  queueUrl = `${endpoint.url}/123456789012/deliveries`;
});

/** The SDK warns that the queue URL's host differs from its regional endpoint: as intended. */
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** What the AWS SDK's SQS client sends for `command` (to the same stand-in). */
async function sentBySdk(command: SendMessageCommand | SendMessageBatchCommand) {
  const sdk = new SQSClient({ region, credentials, logger: quiet });
  try {
    await sdk.send(command as SendMessageCommand);
  } finally {
    sdk.destroy();
  }
  return endpoint.requests.splice(0)[0]!;
}

describe('the SQS client', () => {
  it('sends a SendMessage as the AWS SDK does, signed as its signer would', async () => {
    const input = { QueueUrl: queueUrl, MessageBody: '{"delivery_id":"dlv_é"}', DelaySeconds: 30 };
    const reference = await sentBySdk(new SendMessageCommand(input));

    const output = await client.sendMessage(input);

    const [ours] = endpoint.requests.splice(0);
    expect(protocolOf(ours!)).toEqual(protocolOf(reference));
    expect(protocolOf(ours!)).toMatchObject({
      target: 'AmazonSQS.SendMessage',
      scope: 'eu-west-1/sqs/aws4_request',
    });
    expect(ours!.headers.authorization).toBe(
      await sdkAuthorization(ours!, { service: 'sqs', region, credentials }),
    );
    expect(output.MessageId).toEqual(expect.any(String));
  });

  it('sends a SendMessageBatch as the AWS SDK does, and hands back the entries SQS refused', async () => {
    const input = {
      QueueUrl: queueUrl,
      Entries: [
        { Id: '0', MessageBody: 'first' },
        { Id: '1', MessageBody: 'second', DelaySeconds: 900 },
      ],
    };
    const reference = await sentBySdk(new SendMessageBatchCommand(input));
    const refused = { Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' };
    endpoint.answers = [
      jsonAnswer(200, {
        Successful: [
          {
            Id: '0',
            MessageId: 'm0',
            MD5OfMessageBody: createHash('md5').update('first').digest('hex'),
          },
        ],
        Failed: [refused],
      }),
    ];

    const output = await client.sendMessageBatch(input);

    const [ours] = endpoint.requests.splice(0);
    expect(protocolOf(ours!)).toEqual(protocolOf(reference));
    expect(ours!.headers['x-amz-target']).toBe('AmazonSQS.SendMessageBatch');
    expect(output.Failed).toEqual([refused]);
  });

  it('retries throttling and server errors, then gives up naming the error', async () => {
    endpoint.answers = [
      jsonAnswer(400, { __type: 'com.amazonaws.sqs#RequestThrottled', message: 'slow down' }),
      jsonAnswer(500, { __type: 'com.amazonaws.sqs#InternalError' }),
    ];
    await client.sendMessage({ QueueUrl: queueUrl, MessageBody: 'a' });
    expect(endpoint.requests.splice(0)).toHaveLength(3);

    endpoint.answers = Array.from({ length: 3 }, () =>
      jsonAnswer(503, { __type: 'com.amazonaws.sqs#ServiceUnavailable', message: 'later' }),
    );
    const failure = client.sendMessage({ QueueUrl: queueUrl, MessageBody: 'a' });
    await expect(failure).rejects.toBeInstanceOf(AwsError);
    await expect(failure).rejects.toMatchObject({ name: 'ServiceUnavailable', httpStatus: 503 });
    expect(endpoint.requests.splice(0)).toHaveLength(3);
  });

  it('does not retry what SQS refused', async () => {
    endpoint.answers = [
      jsonAnswer(400, {
        __type: 'com.amazonaws.sqs#QueueDoesNotExist',
        message: 'The specified queue does not exist.',
      }),
    ];
    await expect(
      client.sendMessage({ QueueUrl: queueUrl, MessageBody: 'a' }),
    ).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
      message: 'The specified queue does not exist.',
    });
    expect(endpoint.requests.splice(0)).toHaveLength(1);
  });

  it('refuses an answer whose checksum does not match the message sent, as the SDK does', async () => {
    endpoint.answers = [jsonAnswer(200, { MessageId: 'm', MD5OfMessageBody: '0'.repeat(32) })];
    await expect(client.sendMessage({ QueueUrl: queueUrl, MessageBody: 'a' })).rejects.toThrow(
      'InvalidChecksumError',
    );
  });

  it('takes region and credentials from the environment Lambda gives it', async () => {
    await inLambdaEnvironment('ap-southeast-2', {}, () =>
      new SqsClient().sendMessage({ QueueUrl: queueUrl, MessageBody: 'a' }),
    );
    const [ours] = endpoint.requests.splice(0);
    expect(ours!.headers['x-amz-security-token']).toBe('lambda-session');
    expect(ours!.headers.authorization).toBe(
      await sdkAuthorization(ours!, {
        service: 'sqs',
        region: 'ap-southeast-2',
        credentials: lambdaCredentials,
      }),
    );
  });
});
