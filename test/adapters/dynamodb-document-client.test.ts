import { randomUUID } from 'node:crypto';
import {
  ConditionalCheckFailedException,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  aroundDynamoCalls,
  BatchedReader,
  type DynamoClients,
  dynamo,
  dynamoClients,
  dynamoInUse,
  transactWrite,
  useDynamo,
} from '../../shared/adapters/dynamodb.js';
import { responseForError } from '../../shared/http/responses.js';
import { useFreshTable } from '../support/table.js';

let table = '';

beforeAll(async () => {
  table = await useFreshTable();
});

describe('the DocumentClient as the service builds it', () => {
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
    await dynamo().send(
      new PutCommand({ TableName: table, Item: { ...item, dropped: undefined } }),
    );
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: table, Key: { pk: item.pk, sk: 'ALL' }, ConsistentRead: true }),
    );
    expect(Item).toEqual({ ...item, bytes: new Uint8Array(item.bytes) });
  });

  it('names the condition that cancelled a transaction, with its item as it was', async () => {
    const key = { pk: `ITEM#${randomUUID()}`, sk: 'ONE' };
    await dynamo().send(new PutCommand({ TableName: table, Item: { ...key, version: 1 } }));

    const cancelled = await transactWrite({
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
    });
    expect(cancelled).toEqual({ ok: false, failedIndex: 1, failedItem: { ...key, version: 1 } });
  });
});

describe('the batched reader', () => {
  let local: DynamoClients;
  beforeAll(() => {
    local = dynamoInUse();
  });

  it('reads what one turn asks for in one consistent BatchGetItem, each key once', async () => {
    const reader = new BatchedReader();
    const keys = [1, 2, 3].map((n) => ({ pk: `READ#${randomUUID()}`, sk: String(n) }));
    for (const key of keys.slice(0, 2))
      await dynamo().send(new PutCommand({ TableName: table, Item: { ...key } }));
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
  const recording = dynamoClients({ endpoint: inject('dynamoEndpoint') });
  aroundDynamoCalls(async ({ operation, input }, next) => {
    operations.push(`${operation} ${JSON.stringify(input)}`);
    return next();
  }, recording);
  useDynamo(recording);
  return operations;
}

describe('a DynamoDB refusal reaching the API', () => {
  it('answers the 500 envelope, never a 4xx that blames the request body', () => {
    const metadata = { $metadata: { httpStatusCode: 400, requestId: 'R1' } };
    for (const error of [
      new ThrottlingException({
        message: 'Rate of requests exceeds the allowed throughput',
        ...metadata,
      }),
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        ...metadata,
      }),
      new TransactionCanceledException({ message: 'Transaction cancelled', ...metadata }),
    ]) {
      const response = responseForError(error, 'req-1');
      expect(response.statusCode, error.name).toBe(500);
      expect(JSON.parse(response.body).error.code).toBe('internal_error');
    }
  });
});
