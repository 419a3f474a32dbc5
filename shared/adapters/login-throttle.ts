import { tableName } from '../config.js';
import type { LoginThrottle } from '../domain/accounts/ports.js';
import { epochSeconds } from '../domain/clock.js';
import { deleteItems, dynamo, queryAll } from './dynamodb.js';
import { ConditionalCheckFailed } from './dynamodb-client.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * `LOGIN_THROTTLE#<email>` / `<source ip>`: `failures` counted until `window_ends` (epoch ms, a
 * day after the last failure) and `locked_until` (epoch ms). Expiry is checked in code: TTL
 * deletes lazily, and DynamoDB Local never does.
 */
const failureWindowMs = 24 * 60 * 60 * 1000;

const windowFields = (now: number) => ({
  ':end': now + failureWindowMs,
  ':ttl': epochSeconds(now + failureWindowMs) + 60,
});

/** A state whose window has ended reads as none. */
async function countInOpenWindow(email: string, source: string, now: number) {
  try {
    const result = await dynamo().update({
      TableName: tableName(),
      Key: keys.loginThrottle(email, source),
      UpdateExpression: 'ADD failures :one SET window_ends = :end, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(pk) OR window_ends > :now',
      ExpressionAttributeNames: { '#ttl': ttlAttribute },
      ExpressionAttributeValues: { ':one': 1, ':now': now, ...windowFields(now) },
      ReturnValues: 'UPDATED_NEW',
    });
    return Number(result.Attributes?.failures ?? 1);
  } catch (error) {
    if (error instanceof ConditionalCheckFailed) return undefined;
    throw error;
  }
}

export const dynamoLoginThrottle: LoginThrottle = {
  async read(email, source, now) {
    const result = await dynamo().get({
      TableName: tableName(),
      Key: keys.loginThrottle(email, source),
      ProjectionExpression: 'failures, locked_until, window_ends',
      ConsistentRead: true,
    });
    const item = result.Item;
    if (item === undefined || Number(item.window_ends) <= now)
      return { failures: 0, lockedUntil: 0 };
    return { failures: Number(item.failures ?? 0), lockedUntil: Number(item.locked_until ?? 0) };
  },

  async recordFailure(email, source, now) {
    const counted = await countInOpenWindow(email, source, now);
    if (counted !== undefined) return counted;
    // A window that ended (not yet removed by TTL) starts over with this failure; a concurrent
    // failure that restarted it first makes this one count in the new window.
    try {
      await dynamo().put({
        TableName: tableName(),
        Item: {
          ...keys.loginThrottle(email, source),
          failures: 1,
          window_ends: windowFields(now)[':end'],
          [ttlAttribute]: windowFields(now)[':ttl'],
        },
        ConditionExpression: 'window_ends <= :now',
        ExpressionAttributeValues: { ':now': now },
      });
      return 1;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailed)) throw error;
      return (await countInOpenWindow(email, source, now)) ?? 1;
    }
  },

  async lock(email, source, lockedUntil) {
    try {
      await dynamo().update({
        TableName: tableName(),
        Key: keys.loginThrottle(email, source),
        UpdateExpression: 'SET locked_until = :until',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(locked_until) OR locked_until < :until)',
        ExpressionAttributeValues: { ':until': lockedUntil },
      });
    } catch (error) {
      // A longer lock is already in place.
      if (!(error instanceof ConditionalCheckFailed)) throw error;
    }
  },

  async clear(email) {
    const found = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.loginThrottles(email).pk },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    await deleteItems(found.map((item) => ({ pk: String(item.pk), sk: String(item.sk) })));
  },
};
