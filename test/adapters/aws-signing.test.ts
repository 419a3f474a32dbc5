import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { HttpRequest } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SourceData } from '@smithy/types';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoClients, getItem, useDynamo } from '../../shared/adapters/dynamodb.js';
import { sqsClient } from '../../shared/adapters/sqs.js';
import {
  type EndpointAnswer,
  jsonAnswer,
  quickTimeouts,
  type ReceivedRequest,
  sqsAnswer,
  useRecordingEndpoint,
} from '../support/aws-endpoint.js';

/**
 * The service's clients build the SDK's SigV4 signer once per signing region and service
 * (aws-client-settings.ts, `signingWithOneSigner`). What must not change with that: every request
 * carries a signature AWS accepts, made at that request's own moment, and the clock skew the SDK
 * learns from an answer still moves the date of the requests that follow. Each signature is
 * checked by signing the request as received again with a signer of its own.
 */

const bytesOf = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** SHA-256 as the signer asks for it (an HMAC when it is given a key). */
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(key?: SourceData) {
    this.hash = key === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(key));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {}
}

/** `20261128T150405Z`, as X-Amz-Date writes a moment. */
const amzDateOf = (request: ReceivedRequest): Date => {
  const text = String(request.headers['x-amz-date']);
  const iso = text.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
  return new Date(iso);
};

/** The Authorization header a signer of its own makes for the request as it was received. */
async function expectedAuthorization(request: ReceivedRequest, service: string): Promise<string> {
  const authorization = String(request.headers.authorization);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const [path = '/', query] = request.url.split('?');
  const resigned = await new SignatureV4({
    credentials: {
      accessKeyId: String(process.env.AWS_ACCESS_KEY_ID),
      secretAccessKey: String(process.env.AWS_SECRET_ACCESS_KEY),
      sessionToken: process.env.AWS_SESSION_TOKEN,
    },
    region: String(process.env.AWS_REGION),
    service,
    sha256: Sha256,
  }).sign(
    new HttpRequest({
      method: request.method,
      protocol: 'http:',
      hostname: String(request.headers.host).split(':')[0],
      port: Number(String(request.headers.host).split(':')[1]),
      path,
      query: Object.fromEntries(new URLSearchParams(query ?? '')),
      headers: Object.fromEntries(
        signedHeaders
          .filter((name) => name !== 'x-amz-date' && name !== 'x-amz-security-token')
          .map((name) => [name, String(request.headers[name])]),
      ),
      body: request.body,
    }),
    { signingDate: amzDateOf(request) },
  );
  return String(resigned.headers.authorization);
}

describe('requests signed by one signer per client', () => {
  const aws = useRecordingEndpoint();
  const found = (id: string) => jsonAnswer(200, { Item: { pk: { S: id }, sk: { S: 'PROFILE' } } });

  beforeAll(() => {
    process.env.TABLE_NAME = 'signing';
  });
  beforeEach(() => {
    useDynamo(dynamoClients({ endpoint: aws.url, ...quickTimeouts }));
  });

  it('signs each DynamoDB request over its own body, as AWS checks it', async () => {
    aws.answers = ['USER#a', 'USER#b', 'USER#c'].map(found);

    for (const id of ['USER#a', 'USER#b', 'USER#c']) await getItem({ pk: id, sk: 'PROFILE' });

    expect(aws.requests).toHaveLength(3);
    const signatures = aws.requests.map((request) => String(request.headers.authorization));
    expect(new Set(signatures).size, 'three bodies, three signatures').toBe(3);
    for (const request of aws.requests) {
      expect(String(request.headers.authorization)).toBe(
        await expectedAuthorization(request, 'dynamodb'),
      );
    }
  });

  it('signs at AWS’s time once DynamoDB says the signature came from a skewed clock, and keeps it', async () => {
    // A machine whose clock is an hour behind: DynamoDB refuses the signature, and every answer
    // says DynamoDB's time.
    const awsTime = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000);
    const atAwsTime = (answer: EndpointAnswer) => ({
      ...answer,
      headers: { date: awsTime.toUTCString() },
    });
    aws.answers = [
      jsonAnswer(400, {
        __type: 'com.amazon.coral.service#InvalidSignatureException',
        message: 'Signature not yet current',
      }),
      found('USER#a'),
      found('USER#b'),
    ].map(atAwsTime);

    await expect(getItem({ pk: 'USER#a', sk: 'PROFILE' })).resolves.toMatchObject({
      pk: 'USER#a',
    });
    await getItem({ pk: 'USER#b', sk: 'PROFILE' });

    expect(aws.requests).toHaveLength(3);
    const [refused, retried, next] = aws.requests.map(amzDateOf) as [Date, Date, Date];
    expect(Math.abs(refused.getTime() - Date.now())).toBeLessThan(60_000);
    // The retry and the next call are signed at AWS's time (give or take the test's own seconds).
    for (const date of [retried, next]) {
      expect(Math.abs(date.getTime() - awsTime.getTime())).toBeLessThan(60_000);
    }
    for (const request of aws.requests.slice(1)) {
      expect(String(request.headers.authorization)).toBe(
        await expectedAuthorization(request, 'dynamodb'),
      );
    }
  });
});

describe('SQS requests signed by one signer', () => {
  const aws = useRecordingEndpoint(sqsAnswer);

  it('signs each message it sends', async () => {
    const client = sqsClient({ endpoint: aws.url, ...quickTimeouts });
    for (const body of ['first', 'second']) {
      await client.send(
        new SendMessageCommand({ QueueUrl: `${aws.url}/000000000000/signing`, MessageBody: body }),
      );
    }

    expect(aws.requests).toHaveLength(2);
    for (const request of aws.requests) {
      expect(String(request.headers.authorization)).toContain('/sqs/aws4_request');
      expect(String(request.headers.authorization)).toBe(
        await expectedAuthorization(request, 'sqs'),
      );
    }
  });
});
