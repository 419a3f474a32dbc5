import { tableName } from '../config.js';
import { epochSeconds } from '../domain/clock.js';
import type { DeliverableEventType, StoredEvent } from '../domain/webhooks/model.js';
import type { EventRepository } from '../domain/webhooks/ports.js';
import {
  getItem,
  iso,
  putIfAbsent,
  queryWorkShards,
  transactWrite,
  updateIf,
  workBefore,
} from './dynamodb.js';
import { keys, stalledFanOutPartitions } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/** Events and their deliveries are kept 30 days (then DynamoDB TTL removes them). */
export const eventRetentionSeconds = 30 * 24 * 60 * 60;

interface EventItem {
  id: string;
  account_id: string;
  type: DeliverableEventType;
  created_at: string;
  payload: string;
}

export const eventFromItem = (item: Record<string, unknown>): StoredEvent => {
  const stored = item as unknown as EventItem;
  const { data } = JSON.parse(stored.payload) as { data: Record<string, unknown> };
  return {
    id: stored.id,
    accountId: stored.account_id,
    type: stored.type,
    createdAt: stored.created_at,
    data,
    payload: stored.payload,
  };
};

function eventItem(event: StoredEvent): Record<string, unknown> {
  return {
    ...keys.event(event.id),
    kind: 'webhook_event',
    id: event.id,
    account_id: event.accountId,
    type: event.type,
    created_at: event.createdAt,
    payload: event.payload,
    // Listed on gsi2 until every delivery exists; the sweeper finishes fan-outs left behind.
    ...keys.stalledFanOuts(event.id),
    gsi2sk: event.createdAt,
    [ttlAttribute]: epochSeconds(Date.parse(event.createdAt)) + eventRetentionSeconds,
  } satisfies Record<string, unknown> & EventItem;
}

async function getEvent(eventId: string): Promise<StoredEvent | undefined> {
  const item = await getItem(keys.event(eventId));
  return item === undefined ? undefined : eventFromItem(item);
}

export const dynamoEventRepository: EventRepository = {
  async create(event, idempotency) {
    if (idempotency === undefined) {
      // Event ids are random: one taken is a bug, not an answer.
      if (!(await putIfAbsent(eventItem(event)))) throw new Error(`event id ${event.id} taken`);
      return { created: true };
    }
    const idempotencyKey = keys.eventIdempotency(event.accountId, idempotency.key);
    const now = epochSeconds(Date.parse(event.createdAt));
    // The key and the event in one transaction: a key never points at an event that was not
    // stored, and a live key (TTL deletes lazily, so expiry is checked here) wins over a repeat.
    const outcome = await transactWrite({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...idempotencyKey,
              kind: 'event_idempotency',
              event_id: event.id,
              fingerprint: idempotency.fingerprint,
              [ttlAttribute]: epochSeconds(idempotency.expiresAt),
            },
            ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
            ExpressionAttributeNames: { '#ttl': ttlAttribute },
            ExpressionAttributeValues: { ':now': now },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: eventItem(event),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    if (outcome.ok) return { created: true };
    const stored = await getItem(idempotencyKey);
    const existing =
      typeof stored?.event_id === 'string' ? await getEvent(stored.event_id) : undefined;
    if (stored === undefined || existing === undefined) {
      throw new Error(`idempotency key of account ${event.accountId} points at no event`);
    }
    return { created: false, existing, fingerprint: String(stored.fingerprint) };
  },

  async markFannedOut(eventId) {
    const marked = await updateIf({
      Key: keys.event(eventId),
      UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
      ConditionExpression: 'attribute_exists(pk)',
    });
    if (!marked.ok) throw new Error(`event ${eventId} is gone`);
  },

  async listStalledFanOuts(before, limit) {
    const bound = workBefore(iso(before));
    return (await queryWorkShards(stalledFanOutPartitions(), limit, bound)).map(eventFromItem);
  },
};
