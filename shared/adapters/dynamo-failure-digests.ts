import type { FailureDigest, FailureDigestRepository } from '../domain/webhooks/failure-digest.js';
import { iso, queryWorkShards, updateIf, workBefore } from './dynamodb.js';
import { dueDigestPartitions, keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/** A digest item is kept a week after its day (what was sent), then DynamoDB's TTL removes it. */
const keptSeconds = 8 * 24 * 60 * 60;

/** Failed deliveries per event type are attributes `type_<event type>` of the digest item. */
const typePrefix = 'type_';

/**
 * One item per endpoint and UTC day (`FAILURE_DIGEST#<endpoint>` / `<day>`), one update per
 * delivery that failed for good; while unsent it waits on a shard of the due-digest index
 * (`DIGESTS_DUE#<shard>`) by when it may be sent.
 */
export const dynamoFailureDigestRepository: FailureDigestRepository = {
  async add({ endpoint, delivery, last, at }, day, sendAfter) {
    await updateIf({
      Key: keys.failureDigest(endpoint.id, day),
      UpdateExpression: [
        'SET kind = :kind, account_id = :account, endpoint_id = :endpoint, #url = :url, #day = :day,',
        ' first_failure_at = if_not_exists(first_failure_at, :at), last_failure_at = :at,',
        ' last_error = :error, gsi2pk = :due, gsi2sk = if_not_exists(gsi2sk, :sendAfter), #ttl = :ttl',
        ' ADD failed :one, #type :one',
      ].join(''),
      ExpressionAttributeNames: {
        '#url': 'url',
        '#day': 'day',
        '#ttl': ttlAttribute,
        '#type': `${typePrefix}${delivery.eventType}`,
      },
      ExpressionAttributeValues: {
        ':kind': 'failure_digest',
        ':account': endpoint.accountId,
        ':endpoint': endpoint.id,
        ':url': endpoint.url,
        ':day': day,
        ':at': new Date(at).toISOString(),
        ':error': last.error ?? 'no 2xx response',
        ':due': keys.dueDigests(endpoint.id).gsi2pk,
        ':sendAfter': iso(sendAfter),
        ':ttl': Math.floor(day / 1000) + keptSeconds,
        ':one': 1,
      },
    });
  },

  async takeDue(before, limit) {
    const due = await queryWorkShards(dueDigestPartitions(), limit, workBefore(iso(before)));
    const taken = await Promise.all(
      due.map(async (item) => {
        const result = await updateIf({
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET sent_at = :now REMOVE gsi2pk, gsi2sk',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(sent_at)',
          ExpressionAttributeValues: { ':now': iso(before) },
          ReturnValues: 'ALL_NEW',
        });
        return result.ok && result.attributes ? digestOf(result.attributes) : undefined;
      }),
    );
    return taken.filter((digest) => digest !== undefined);
  },
};

function digestOf(item: Record<string, unknown>): FailureDigest {
  const byEventType: Record<string, number> = {};
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(typePrefix)) byEventType[name.slice(typePrefix.length)] = Number(value);
  }
  return {
    endpointId: String(item.endpoint_id),
    accountId: String(item.account_id),
    url: String(item.url),
    day: Number(item.day),
    failed: Number(item.failed),
    byEventType,
    firstFailureAt: String(item.first_failure_at),
    lastFailureAt: String(item.last_failure_at),
    lastError: String(item.last_error),
  };
}
