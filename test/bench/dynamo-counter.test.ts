import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoCallCounter, difference, total } from '../../bench/dynamo-counter.js';
import { type DynamoClients, dynamoClients } from '../../shared/adapters/dynamodb.js';
import { ensureTable } from '../../shared/local/dynamodb-local.js';

let clients: DynamoClients;
const table = `bench-counter-${randomUUID()}`;

beforeAll(async () => {
  const endpoint = inject('dynamoEndpoint');
  const admin = new DynamoDBClient({ endpoint });
  await ensureTable(admin, table);
  admin.destroy();
  clients = dynamoClients({ endpoint });
});

describe('the bench DynamoDB call counter', () => {
  it('counts every call made through the client once, by operation', async () => {
    const counter = new DynamoCallCounter();
    counter.install(clients);
    const before = counter.snapshot();

    await clients.document().send(new PutCommand({ TableName: table, Item: { pk: 'A', sk: 'A' } }));
    await clients.document().send(new GetCommand({ TableName: table, Key: { pk: 'A', sk: 'A' } }));
    await clients.document().send(new GetCommand({ TableName: table, Key: { pk: 'B', sk: 'B' } }));

    const calls = difference(counter.snapshot(), before);
    expect(calls).toEqual({ PutItem: 1, GetItem: 2 });
    expect(total(calls)).toBe(3);
  });

  it('counts a call that DynamoDB refuses too', async () => {
    const counter = new DynamoCallCounter();
    counter.install(clients);

    await expect(
      clients
        .document()
        .send(new GetCommand({ TableName: `${table}-missing`, Key: { pk: 'A', sk: 'A' } })),
    ).rejects.toThrow();

    expect(counter.snapshot()).toEqual({ GetItem: 1 });
  });

  it('leaves out the calls it is told to ignore, and counts them apart', async () => {
    const counter = new DynamoCallCounter((command) => command === 'GetItem');
    counter.install(clients);

    await clients.document().send(new PutCommand({ TableName: table, Item: { pk: 'C', sk: 'C' } }));
    await clients.document().send(new GetCommand({ TableName: table, Key: { pk: 'C', sk: 'C' } }));

    expect(counter.snapshot()).toEqual({ PutItem: 1 });
    expect(counter.ignored).toBe(1);
  });
});
