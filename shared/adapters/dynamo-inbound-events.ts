import { gunzipSync, gzipSync } from 'node:zlib';
import { epochSeconds } from '../domain/clock.js';
import { Refusal } from '../domain/errors.js';
import {
  dedupeWindowSeconds,
  type InboundEventStatus,
  type InboundRoute,
  type InboundSource,
} from '../domain/inbound/model.js';
import type { InboundEventStore, StalledEvent } from '../domain/inbound/ports.js';
import { inboundSweepGraceMs } from '../domain/inbound/sweep-events.js';
import type { Item } from './dynamodb.js';
import { getItem, iso, putIf, queryWorkShards, updateIf, workBefore } from './dynamodb.js';
import { keys, stalledInboundPartitions } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * DynamoDB items stop at 400 KB; bodies up to 1 MiB are accepted, so the body is stored gzipped
 * (JSON shrinks 5–10×). One that is still too large after compression is refused with a 413.
 */
const maxStoredBodyBytes = 350_000;

const statusNames = { '#status': 'status', '#ttl': ttlAttribute };

function key(source: InboundSource, eventId: string) {
  return keys.inboundEvent(source, eventId);
}

/** The status and lease of a stored record. */
function stateOf(item: Record<string, unknown> | undefined) {
  if (item === undefined) return undefined;
  return {
    status: item.status as InboundEventStatus | undefined,
    leaseUntil: Number(item.lease_until ?? 0),
    expiresAt: Number(item[ttlAttribute] ?? 0),
  };
}

/** The stored state behind a failed condition: the item DynamoDB returned, else a fresh read. */
async function stateAfterRefusal(item: Item | undefined, source: InboundSource, eventId: string) {
  return stateOf(item ?? (await getItem(key(source, eventId))));
}

/**
 * What one DynamoDB item holds ("Service, account, and table quotas in Amazon DynamoDB"): a
 * partition key of at most 2,048 bytes, a sort key of at most 1,024, an item of at most 400 KB.
 */
const maxPartitionKeyBytes = 2048;
const maxItemBytes = 400 * 1024;

/**
 * An item's size as DynamoDB counts it, from above: each attribute's name and value — strings in
 * UTF-8, binaries by length, numbers and booleans at their largest (21 bytes).
 */
function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name, 'utf8');
    if (typeof value === 'string') bytes += Buffer.byteLength(value, 'utf8');
    else if (value instanceof Uint8Array) bytes += value.length;
    else bytes += 21;
  }
  return bytes;
}

export const dynamoInboundEventStore: InboundEventStore = {
  async record(event, now) {
    const compressed = gzipSync(event.rawBody);
    const eventKey = key(event.source, event.eventId);
    const item = {
      ...eventKey,
      kind: 'inbound_event',
      source: event.source,
      event_id: event.eventId,
      type: event.type,
      route: event.route,
      status: 'received' satisfies InboundEventStatus,
      received_at: new Date(event.receivedAt).toISOString(),
      body_gzip: compressed,
      // Listed for the sweeper from the start, in the same write: if the hand-off to the
      // queue fails and the sender never retries, the event is still found.
      ...keys.stalledInboundEvents(event.source, event.eventId),
      gsi2sk: iso(now + inboundSweepGraceMs),
      [ttlAttribute]: epochSeconds(now) + dedupeWindowSeconds,
    };
    // A body, an id or a type storage cannot keep is refused (413), never sent to fail (500): a
    // 260 KB id of four-byte characters is no key, a 300 KB type no item.
    if (
      compressed.length > maxStoredBodyBytes ||
      Buffer.byteLength(eventKey.pk, 'utf8') > maxPartitionKeyBytes ||
      itemBytes(item) > maxItemBytes
    ) {
      throw new Refusal('eventTooLarge', { limit: maxStoredBodyBytes });
    }
    const written = await putIf({
      Item: item,
      // New, or an expired record DynamoDB has not deleted yet (TTL deletes lazily).
      ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
      ExpressionAttributeNames: { '#ttl': ttlAttribute },
      ExpressionAttributeValues: { ':now': epochSeconds(now) },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (written.ok) return { created: true };
    const state = await stateAfterRefusal(written.item, event.source, event.eventId);
    const status = state?.status ?? 'received';
    const stalled =
      status === 'received' || (status === 'processing' && (state?.leaseUntil ?? 0) < now);
    return { created: false, status, stalled };
  },

  async claim(request, now, leaseUntil) {
    const claimed = await updateIf({
      Key: key(request.source, request.eventId),
      // A worker that dies leaves the event due for the sweeper once its lease has run out.
      UpdateExpression: 'SET #status = :processing, lease_until = :lease, gsi2sk = :due',
      ConditionExpression:
        '#ttl > :nowSeconds AND (#status = :received OR (#status = :processing AND lease_until < :now))',
      ExpressionAttributeNames: statusNames,
      ExpressionAttributeValues: {
        ':processing': 'processing',
        ':received': 'received',
        ':lease': leaseUntil,
        ':due': iso(leaseUntil + inboundSweepGraceMs),
        ':now': now,
        ':nowSeconds': epochSeconds(now),
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (!claimed.ok) {
      const state = await stateAfterRefusal(claimed.item, request.source, request.eventId);
      if (state?.status === undefined || state.expiresAt <= epochSeconds(now)) {
        return { claimed: false, reason: 'missing' };
      }
      return { claimed: false, reason: state.status === 'processing' ? 'busy' : 'done' };
    }
    const item = claimed.attributes ?? {};
    return {
      claimed: true,
      event: {
        source: request.source,
        eventId: request.eventId,
        type: String(item.type),
        route: item.route as InboundRoute,
        receivedAt: Date.parse(String(item.received_at)),
        rawBody: gunzipSync(item.body_gzip as Uint8Array),
      },
    };
  },

  async finish(request, status, result, now) {
    // Refused when another worker took over after our lease ran out and finished first: nothing
    // to add.
    await updateIf({
      Key: key(request.source, request.eventId),
      UpdateExpression:
        'SET #status = :status, #result = :result, processed_at = :at REMOVE lease_until, gsi2pk, gsi2sk',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status', '#result': 'result' },
      ExpressionAttributeValues: {
        ':status': status,
        ':result': result.slice(0, 500),
        ':at': iso(now),
        ':processing': 'processing',
      },
    });
  },

  async release(request) {
    await updateIf({
      Key: key(request.source, request.eventId),
      UpdateExpression: 'SET #status = :received REMOVE lease_until',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':received': 'received', ':processing': 'processing' },
    });
  },

  async listStalled(now, limit) {
    const Items = await queryWorkShards(stalledInboundPartitions(), limit, workBefore(iso(now)), {
      // The sweeper needs none of the (gzipped) bodies.
      expression: '#source, event_id, #status, gsi2sk, sweep_count',
      names: { '#source': 'source', '#status': 'status' },
    });
    return Items.map(
      (item): StalledEvent => ({
        source: item.source as InboundSource,
        eventId: String(item.event_id),
        status: item.status as StalledEvent['status'],
        dueAt: Date.parse(String(item.gsi2sk)),
        sweeps: Number(item.sweep_count ?? 0),
      }),
    );
  },

  async markSwept(event, nextDueAt) {
    const result = await updateIf({
      Key: key(event.source, event.eventId),
      UpdateExpression: 'SET gsi2sk = :next ADD sweep_count :one',
      // Unchanged since listed: a claim, a finish or another sweep would have moved it.
      ConditionExpression: 'gsi2sk = :seen',
      ExpressionAttributeValues: {
        ':next': iso(nextDueAt),
        ':one': 1,
        ':seen': iso(event.dueAt),
      },
    });
    return result.ok;
  },

  async abandon(event, result, now) {
    const abandoned = await updateIf({
      Key: key(event.source, event.eventId),
      UpdateExpression:
        'SET #status = :failed, #result = :result, processed_at = :at REMOVE lease_until, gsi2pk, gsi2sk',
      ConditionExpression:
        'gsi2sk = :seen AND (#status = :received OR (#status = :processing AND lease_until < :now))',
      ExpressionAttributeNames: { '#status': 'status', '#result': 'result' },
      ExpressionAttributeValues: {
        ':failed': 'failed',
        ':result': result.slice(0, 500),
        ':at': iso(now),
        ':seen': iso(event.dueAt),
        ':received': 'received',
        ':processing': 'processing',
        ':now': now,
      },
    });
    return abandoned.ok;
  },
};

/** The stored state of an inbound event, for tests and operators. */
export async function inboundEventState(
  source: InboundSource,
  eventId: string,
): Promise<{ status: InboundEventStatus; result?: string } | undefined> {
  const item = await getItem(key(source, eventId));
  if (item === undefined) return undefined;
  return {
    status: item.status as InboundEventStatus,
    ...(typeof item.result === 'string' ? { result: item.result } : {}),
  };
}
