import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import { guardedHandler, guardItemAccess } from '../../shared/local/item-access-guard.js';
import { useFreshTable } from '../support/table.js';

let table = '';

beforeAll(async () => {
  table = await useFreshTable();
  guardItemAccess();
});

const readUser = () => dynamo().send(new GetCommand({ TableName: table, Key: keys.user('u1') }));
const queryDue = () =>
  dynamo().send(
    new QueryCommand({
      TableName: table,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.dueDeliveries('dlv_1').gsi2pk },
    }),
  );

describe('the local runtime’s item access guard', () => {
  it('lets a handler reach the families its routes declare', async () => {
    const handler = guardedHandler(
      'functions/x.ts',
      { items: ['user', 'dueDeliveries'] },
      async () => {
        await readUser();
        await queryDue();
        return 'done';
      },
    );
    await expect(handler()).resolves.toBe('done');
  });

  it('refuses, as IAM would on AWS, an item or index partition its routes do not declare', async () => {
    const publicReceiver = guardedHandler(
      'functions/receivers/r.ts',
      { items: ['inboundEvent'] },
      readUser,
    );
    await expect(publicReceiver()).rejects.toThrow(
      /functions\/receivers\/r\.ts GetItem on USER#u1: its routes do not declare the item family user/,
    );
    const sweeper = guardedHandler('functions/workers/s.ts', { items: ['delivery'] }, queryDue);
    await expect(sweeper()).rejects.toThrow(/DELIVERIES_DUE#\d \(gsi2\).*dueDeliveries/);
  });

  it('lets a function that checks tokens read the published keys, and never write them', async () => {
    // Were a verifier able to publish a key of its own, a flaw in it would mint tokens that
    // every function accepts.
    const publish = () =>
      dynamo().send(
        new PutCommand({
          TableName: table,
          Item: { ...keys.accessTokenKeys(), keys: '{"keys":[]}' },
        }),
      );
    const read = () =>
      dynamo().send(new GetCommand({ TableName: table, Key: keys.accessTokenKeys() }));
    const verifier = guardedHandler(
      'functions/profile/get-profile.ts',
      { items: ['user'], reads: ['accessTokenKeys'] },
      async () => [await read(), await publish()],
    );
    await expect(verifier()).rejects.toThrow(
      /get-profile\.ts PutItem on ACCESS_TOKEN_KEYS: its routes may only read the item family accessTokenKeys/,
    );
    const issuer = guardedHandler(
      'functions/auth/login.ts',
      { items: ['user', 'accessTokenKeys'] },
      publish,
    );
    await expect(issuer()).resolves.toBeDefined();
  });

  it('leaves calls made outside any handler alone', async () => {
    await expect(readUser()).resolves.toBeDefined();
  });
});
