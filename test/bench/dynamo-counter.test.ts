import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoCallCounter, difference, total } from '../../bench/dynamo-counter.js';
import { dynamoDocumentClient } from '../../shared/adapters/dynamodb.js';
import { ensureTable } from '../../shared/local/dynamodb-local.js';

let client: DynamoDBDocumentClient;
const table = `bench-counter-${randomUUID()}`;

beforeAll(async () => {
  const endpoint = inject('dynamoEndpoint');
  const admin = new DynamoDBClient({ endpoint });
  await ensureTable(admin, table);
  admin.destroy();
  client = dynamoDocumentClient({ endpoint });
});

describe('the bench DynamoDB call counter', () => {
  it('counts every call made through the client once, by operation', async () => {
    const counter = new DynamoCallCounter();
    counter.install(client);
    const before = counter.snapshot();

    await client.send(new PutCommand({ TableName: table, Item: { pk: 'A', sk: 'A' } }));
    await client.send(new GetCommand({ TableName: table, Key: { pk: 'A', sk: 'A' } }));
    await client.send(new GetCommand({ TableName: table, Key: { pk: 'B', sk: 'B' } }));

    const calls = difference(counter.snapshot(), before);
    expect(calls).toEqual({ PutItem: 1, GetItem: 2 });
    expect(total(calls)).toBe(3);
  });

  it('counts a call that DynamoDB refuses too', async () => {
    const counter = new DynamoCallCounter();
    counter.install(client);

    await expect(
      client.send(new GetCommand({ TableName: `${table}-missing`, Key: { pk: 'A', sk: 'A' } })),
    ).rejects.toThrow();

    expect(counter.snapshot()).toEqual({ GetItem: 1 });
  });

  it('leaves out the calls it is told to ignore, and counts them apart', async () => {
    const counter = new DynamoCallCounter((command) => command === 'GetItem');
    counter.install(client);

    await client.send(new PutCommand({ TableName: table, Item: { pk: 'C', sk: 'C' } }));
    await client.send(new GetCommand({ TableName: table, Key: { pk: 'C', sk: 'C' } }));

    expect(counter.snapshot()).toEqual({ PutItem: 1 });
    expect(counter.ignored).toBe(1);
  });
});
