import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { BatchedReader, dynamo, useDynamo } from '../../shared/adapters/dynamodb.js';
import {
  ConditionalCheckFailed,
  DynamoClient,
  DynamoError,
  TransactionCanceled,
} from '../../shared/adapters/dynamodb-client.js';
import { responseForError } from '../../shared/http/responses.js';
import {
  exampleCredentials as credentials,
  jsonAnswer,
  sdkAuthorization,
  useRecordingEndpoint,
} from '../support/aws-endpoint.js';
import { useFreshTable } from '../support/table.js';

const endpoint = useRecordingEndpoint();
let table = '';
let local: DynamoClient;

beforeAll(async () => {
  table = await useFreshTable();
  local = new DynamoClient({
    endpoint: inject('dynamoEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

describe('the DynamoDB client', () => {
  it('signs each request exactly as the AWS SDK’s own SigV4 signer would', async () => {
    const client = new DynamoClient({ endpoint: endpoint.url, region: 'eu-west-1', credentials });
    await client.get({ TableName: 'table', Key: { pk: 'USER#1', sk: 'PROFILE' } });

    const [received] = endpoint.requests.splice(0);
    const { headers, body } = received!;
    expect(headers.authorization).toBe(
      await sdkAuthorization(received!, { service: 'dynamodb', region: 'eu-west-1', credentials }),
    );
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token;x-amz-target, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(JSON.parse(body)).toEqual({
      TableName: 'table',
      Key: { pk: { S: 'USER#1' }, sk: { S: 'PROFILE' } },
    });
  });

  it('retries throttling and server errors, with one idempotency token for every try of a transaction', async () => {
    const client = new DynamoClient({ endpoint: endpoint.url, region: 'us-east-1', credentials });
    endpoint.answers = [
      jsonAnswer(400, {
        __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
        message: 'slow',
      }),
      jsonAnswer(500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError' }),
    ];
    await client.transactWrite({
      TransactItems: [{ Put: { TableName: 'table', Item: { pk: 'A', sk: 'B' } } }],
    });

    const tries = endpoint.requests.splice(0).map(({ body }) => JSON.parse(body));
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((body) => body.ClientRequestToken)).size).toBe(1);
  });

  it('does not retry what DynamoDB refused, and names the refusal', async () => {
    const client = new DynamoClient({ endpoint: endpoint.url, region: 'us-east-1', credentials });
    endpoint.answers = [
      jsonAnswer(400, {
        __type: 'com.amazon.coral.validate#ValidationException',
        message: 'One or more parameter values were invalid',
      }),
    ];
    const refusal = client.get({ TableName: 'table', Key: { pk: 'A', sk: 'B' } });
    await expect(refusal).rejects.toBeInstanceOf(DynamoError);
    await expect(refusal).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'One or more parameter values were invalid',
    });
    expect(endpoint.requests.splice(0)).toHaveLength(1);
  });

  it('stores and reads back every attribute type the repositories use, binary included', async () => {
    const item = {
      pk: `ITEM#${randomUUID()}`,
      sk: 'ALL',
      text: 'héllo',
      number: 12.5,
      flag: true,
      nothing: null,
      list: [1, 'two', { three: 3 }],
      map: { nested: { deeper: ['x'] } },
      names: new Set(['ada', 'grace']),
      bytes: Buffer.from([0, 1, 2, 250, 255]),
    };
    await local.put({ TableName: table, Item: { ...item, dropped: undefined } });
    const { Item } = await local.get({
      TableName: table,
      Key: { pk: item.pk, sk: 'ALL' },
      ConsistentRead: true,
    });
    expect(Item).toEqual({ ...item, bytes: new Uint8Array(item.bytes) });
  });

  it('hands back the item behind a failed condition, and each reason of a cancelled transaction', async () => {
    const key = { pk: `ITEM#${randomUUID()}`, sk: 'ONE' };
    await local.put({ TableName: table, Item: { ...key, version: 1 } });

    const refused = await local
      .update({
        TableName: table,
        Key: key,
        UpdateExpression: 'SET version = :next',
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: { ':next': 3, ':expected': 2 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConditionalCheckFailed);
    expect((refused as ConditionalCheckFailed).item).toEqual({ ...key, version: 1 });

    const cancelled = await local
      .transactWrite({
        TransactItems: [
          { Put: { TableName: table, Item: { pk: `ITEM#${randomUUID()}`, sk: 'TWO' } } },
          {
            ConditionCheck: {
              TableName: table,
              Key: key,
              ConditionExpression: 'version = :expected',
              ExpressionAttributeValues: { ':expected': 2 },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      })
      .catch((error: unknown) => error);
    expect(cancelled).toBeInstanceOf(TransactionCanceled);
    expect((cancelled as TransactionCanceled).reasons).toEqual([
      { code: 'None', item: undefined },
      { code: 'ConditionalCheckFailed', item: { ...key, version: 1 } },
    ]);
  });
});

describe('the batched reader', () => {
  it('reads what one turn asks for in one consistent BatchGetItem, each key once', async () => {
    const reader = new BatchedReader();
    const keys = [1, 2, 3].map((n) => ({ pk: `READ#${randomUUID()}`, sk: String(n) }));
    for (const key of keys.slice(0, 2)) await dynamo().put({ TableName: table, Item: { ...key } });
    const operations = recordOperations();
    try {
      const [first, again, second, missing] = await Promise.all([
        reader.read(keys[0]!),
        reader.read(keys[0]!),
        reader.read(keys[1]!),
        reader.read(keys[2]!),
      ]);

      expect([first, again, second, missing]).toEqual([keys[0], keys[0], keys[1], undefined]);
      expect(operations).toHaveLength(1);
      expect(operations[0]).toMatch(/^BatchGetItem .*"ConsistentRead":true/);
      expect(operations[0]!.match(/READ#/g)).toHaveLength(3);
    } finally {
      useDynamo(local);
    }
  });

  it('holds reads until the work under way when they were asked has released it, then reads once', async () => {
    const reader = new BatchedReader();
    const keys = [1, 2, 3].map((n) => ({ pk: `HOLD#${randomUUID()}`, sk: String(n) }));
    const operations = recordOperations();
    try {
      const releases = keys.map(() => reader.hold());
      const reads: Promise<unknown>[] = [];
      // Each "claim" answers in a later turn than the one before, then reads.
      for (const [index, release] of releases.entries()) {
        await new Promise((turn) => setTimeout(turn, 5));
        release();
        reads.push(reader.read(keys[index]!));
      }
      await Promise.all(reads);

      expect(operations).toHaveLength(1);
      expect(operations[0]!.match(/HOLD#/g)).toHaveLength(3);
    } finally {
      useDynamo(local);
    }
  });

  it('does not keep reads waiting for work that began after them', async () => {
    const reader = new BatchedReader();
    const operations = recordOperations();
    try {
      const before = reader.hold();
      const read = reader.read({ pk: `HOLD#${randomUUID()}`, sk: 'waiting' });
      // Taken after the read was asked, and never released: it must not hold the read.
      reader.hold();
      before();

      await expect(read).resolves.toBeUndefined();
      expect(operations).toHaveLength(1);
    } finally {
      useDynamo(local);
    }
  });
});

/** Points the kit at a client that records each operation's name, until `useDynamo(local)`. */
function recordOperations(): string[] {
  const operations: string[] = [];
  const recording = new DynamoClient({
    endpoint: inject('dynamoEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  recording.use(async ({ operation, input }, next) => {
    operations.push(`${operation} ${JSON.stringify(input)}`);
    return next();
  });
  useDynamo(recording);
  return operations;
}

describe('a DynamoDB refusal reaching the API', () => {
  it('answers the 500 envelope, never a 4xx that blames the request body', () => {
    for (const error of [
      new DynamoError(
        'ThrottlingException',
        'Rate of requests exceeds the allowed throughput',
        400,
      ),
      new DynamoError('ValidationException', 'One or more parameter values were invalid', 400),
      new ConditionalCheckFailed('The conditional request failed', undefined),
    ]) {
      const response = responseForError(error, 'req-1');
      expect(response.statusCode, error.name).toBe(500);
      expect(JSON.parse(response.body).error.code).toBe('internal_error');
    }
  });
});
