import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { PendingHit, WindowCounter } from '../domain/rate-limit.js';
import { updateIf } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/** Rate-limit counters as DynamoDB items: one atomic ADD per hit, expired by TTL. */

const increment = (expiresAt: number) => ({
  UpdateExpression: 'ADD hits :one SET #ttl = if_not_exists(#ttl, :ttl)',
  ExpressionAttributeNames: { '#ttl': ttlAttribute },
  ExpressionAttributeValues: { ':one': 1, ':ttl': expiresAt },
});

export const dynamoWindowCounter: WindowCounter = {
  async hit(scope, client, windowStart, expiresAt) {
    const result = await updateIf({
      Key: keys.rateCounter(scope, client, windowStart),
      ...increment(expiresAt),
      ReturnValues: 'UPDATED_NEW',
    });
    return Number((result.ok && result.attributes?.hits) || 1);
  },
};

/** The key of the counter a pending hit would be counted on. */
export const counterKeyOf = (hit: PendingHit) =>
  keys.rateCounter(hit.window.scope, hit.client, hit.windowStart);

/** The hits a counter item read holds (none when there is no item yet). */
export const hitsIn = (item: Record<string, unknown> | undefined): number =>
  Number(item?.hits ?? 0);

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A transaction's write that counts `hit` on a condition on the window's count so far. */
function countHitIf(
  hit: PendingHit,
  condition: string,
  values: Record<string, number>,
): TransactItem {
  const { ExpressionAttributeValues, ...update } = increment(hit.expiresAt);
  return {
    Update: {
      TableName: tableName(),
      Key: counterKeyOf(hit),
      ...update,
      ConditionExpression: condition,
      ExpressionAttributeValues: { ...ExpressionAttributeValues, ...values },
    },
  };
}

/** A transaction's write that counts `hit` on the condition that its window is under its limit. */
export const countHitWithinLimit = (hit: PendingHit): TransactItem =>
  countHitIf(hit, 'attribute_not_exists(hits) OR hits < :limit', { ':limit': hit.limit });

/**
 * A transaction's write that counts `hit` on the condition that its window holds exactly
 * `before` hits: when the transaction goes through, the count is `before + 1`, exact, though no
 * write can return a value from inside a transaction.
 */
export const countHitIn = (hit: PendingHit, before: number): TransactItem =>
  before === 0
    ? countHitIf(hit, 'attribute_not_exists(hits)', {})
    : countHitIf(hit, 'hits = :before', { ':before': before });
