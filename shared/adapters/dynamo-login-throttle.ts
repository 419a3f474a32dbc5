import { tableName } from '../config.js';
import type { LoginThrottle } from '../domain/accounts/ports.js';
import { deleteItems, getItem, putIf, queryAll, updateIf } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute, ttlPast } from './table-definition.js';

/**
 * `LOGIN_THROTTLE#<email>` / `<source ip>`: `failures` counted until `window_ends` (epoch ms, a
 * day after the last failure) and `locked_until` (epoch ms). Expiry is checked in code: TTL
 * deletes lazily, and DynamoDB Local never does.
 */
const failureWindowMs = 24 * 60 * 60 * 1000;

const windowFields = (now: number) => ({
  ':end': now + failureWindowMs,
  ':ttl': ttlPast(now + failureWindowMs),
});

/** A state whose window has ended reads as none. */
async function countInOpenWindow(email: string, source: string, now: number) {
  const result = await updateIf({
    Key: keys.loginThrottle(email, source),
    UpdateExpression: 'ADD failures :one SET window_ends = :end, #ttl = :ttl',
    ConditionExpression: 'attribute_not_exists(pk) OR window_ends > :now',
    ExpressionAttributeNames: { '#ttl': ttlAttribute },
    ExpressionAttributeValues: { ':one': 1, ':now': now, ...windowFields(now) },
    ReturnValues: 'UPDATED_NEW',
  });
  return result.ok ? Number(result.attributes?.failures ?? 1) : undefined;
}

export const dynamoLoginThrottle: LoginThrottle = {
  async read(email, source, now) {
    const item = await getItem(keys.loginThrottle(email, source), {
      projection: 'failures, locked_until, window_ends',
    });
    if (item === undefined || Number(item.window_ends) <= now)
      return { failures: 0, lockedUntil: 0 };
    return { failures: Number(item.failures ?? 0), lockedUntil: Number(item.locked_until ?? 0) };
  },

  async recordFailure(email, source, now) {
    const counted = await countInOpenWindow(email, source, now);
    if (counted !== undefined) return counted;
    // A window that ended (not yet removed by TTL) starts over with this failure; a concurrent
    // failure that restarted it first makes this one count in the new window.
    const restarted = await putIf({
      Item: {
        ...keys.loginThrottle(email, source),
        failures: 1,
        window_ends: windowFields(now)[':end'],
        [ttlAttribute]: windowFields(now)[':ttl'],
      },
      ConditionExpression: 'window_ends <= :now',
      ExpressionAttributeValues: { ':now': now },
    });
    if (restarted.ok) return 1;
    return (await countInOpenWindow(email, source, now)) ?? 1;
  },

  async lock(email, source, lockedUntil) {
    // Refused when a longer lock is already in place.
    await updateIf({
      Key: keys.loginThrottle(email, source),
      UpdateExpression: 'SET locked_until = :until',
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(locked_until) OR locked_until < :until)',
      ExpressionAttributeValues: { ':until': lockedUntil },
    });
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
