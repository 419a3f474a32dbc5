import type { QueryCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import { epochSeconds } from '../domain/clock.js';
import {
  type AttemptRecord,
  type DeliverableEventType,
  type Delivery,
  type DeliveryStatus,
  keptAttemptRecords,
} from '../domain/webhooks/model.js';
import type { CreatedWindow, DeliveryRepository } from '../domain/webhooks/ports.js';
import { endpointFromItem } from './dynamo-webhook-endpoints.js';
import { eventFromItem, eventRetentionSeconds } from './dynamo-webhook-events.js';
import {
  BatchedReader,
  batchGetAll,
  getItem,
  iso,
  putIfAbsent,
  putItems,
  query,
  queryPage,
  queryWork,
  queryWorkShards,
  transactWrite,
  updateIf,
  type WorkRange,
  workBefore,
} from './dynamodb.js';
import { dueDeliveryPartitions, keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

interface AttemptItem {
  attempt: number;
  attempted_at: string;
  outcome: 'succeeded' | 'failed';
  request_headers?: Record<string, string>;
  response_status?: number;
  response_headers?: Record<string, string>;
  latency_ms: number;
  response_body?: string;
  error?: string;
}

interface DeliveryItem {
  id: string;
  event_id: string;
  event_type: DeliverableEventType;
  endpoint_id: string;
  account_id: string;
  status: DeliveryStatus;
  next_attempt: number;
  next_attempt_at: number;
  last_allowed_attempt: number;
  /** Absent on deliveries stored before ladders could restart: their ladder started at 1. */
  ladder_start?: number;
  /**
   * Only on deliveries stored when the attempts were kept on the delivery item (at most 20, the
   * latest); attempts since are items of their own (`keys.deliveryAttempt`).
   */
  attempts?: AttemptItem[];
  /** The attempt recorded last, and when: how a retried record finds itself already written. */
  last_attempt?: number;
  last_attempted_at?: string;
  /** Deferrals of the current attempt; absent until the first. */
  deferrals?: number;
  claim_token?: string;
  claim_attempt?: number;
  claim_expires_at?: number;
  claim_count?: number;
  created_at: string;
}

const attemptRecord = (attempt: AttemptItem): AttemptRecord => ({
  attempt: attempt.attempt,
  attemptedAt: attempt.attempted_at,
  outcome: attempt.outcome,
  requestHeaders: attempt.request_headers,
  responseStatus: attempt.response_status,
  responseHeaders: attempt.response_headers,
  latencyMs: attempt.latency_ms,
  responseBody: attempt.response_body,
  error: attempt.error,
});

/**
 * The latest `keptAttemptRecords` attempts, oldest first, of those kept on an older delivery item
 * and those stored as items of their own (one attempt number is recorded once: the item wins).
 */
function latestAttempts(onItem: AttemptItem[], own: AttemptItem[]): AttemptRecord[] {
  const byNumber = new Map<number, AttemptItem>();
  for (const attempt of [...onItem, ...own]) byNumber.set(attempt.attempt, attempt);
  return [...byNumber.values()]
    .sort((a, b) => a.attempt - b.attempt)
    .slice(-keptAttemptRecords)
    .map(attemptRecord);
}

function fromItem(item: Record<string, unknown>, own: AttemptItem[] = []): Delivery {
  const stored = item as unknown as DeliveryItem;
  return {
    id: stored.id,
    eventId: stored.event_id,
    eventType: stored.event_type,
    endpointId: stored.endpoint_id,
    accountId: stored.account_id,
    status: stored.status,
    nextAttempt: stored.next_attempt,
    nextAttemptAt: stored.next_attempt_at,
    lastAllowedAttempt: stored.last_allowed_attempt,
    ladderStart: stored.ladder_start ?? 1,
    deferrals: stored.deferrals ?? 0,
    attempts: latestAttempts(stored.attempts ?? [], own),
    claim:
      stored.claim_token !== undefined &&
      stored.claim_attempt !== undefined &&
      stored.claim_expires_at !== undefined
        ? {
            token: stored.claim_token,
            attempt: stored.claim_attempt,
            expiresAt: stored.claim_expires_at,
            count: stored.claim_count ?? 1,
          }
        : undefined,
    createdAt: stored.created_at,
  };
}

function toItem(delivery: Delivery): Record<string, unknown> {
  const item: DeliveryItem = {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    endpoint_id: delivery.endpointId,
    account_id: delivery.accountId,
    status: delivery.status,
    next_attempt: delivery.nextAttempt,
    next_attempt_at: delivery.nextAttemptAt,
    last_allowed_attempt: delivery.lastAllowedAttempt,
    ladder_start: delivery.ladderStart,
    created_at: delivery.createdAt,
  };
  return {
    ...keys.delivery(delivery.id),
    kind: 'webhook_delivery',
    ...item,
    ...keys.endpointDeliveries(delivery.endpointId),
    gsi1sk: createdKey(delivery),
    ...keys.dueDeliveries(delivery.id),
    gsi2sk: iso(delivery.nextAttemptAt),
    [ttlAttribute]: expiryOf(delivery),
  };
}

/** A delivery and its attempts expire together, with the event they carry. */
const expiryOf = (delivery: Delivery) =>
  epochSeconds(Date.parse(delivery.createdAt)) + eventRetentionSeconds;

/** One attempt as an item of its own, in its delivery's partition. */
const attemptItem = (delivery: Delivery, record: AttemptRecord) => ({
  ...keys.deliveryAttempt(delivery.id, record.attempt),
  kind: 'webhook_attempt',
  [ttlAttribute]: expiryOf(delivery),
  attempt: record.attempt,
  attempted_at: record.attemptedAt,
  outcome: record.outcome,
  request_headers: record.requestHeaders,
  response_status: record.responseStatus,
  response_headers: record.responseHeaders,
  latency_ms: record.latencyMs,
  response_body: record.responseBody,
  error: record.error,
});

/** The events and endpoints of attempts, read after their claims (`loadTarget`). */
const targetReads = new BatchedReader();

const releaseClaim = 'claim_token, claim_attempt, claim_expires_at, claim_count';

/**
 * Whether a delivery item as DynamoDB returned it with a failed condition has no claim left and
 * `record` as its last attempt: the same attempt number at the same millisecond can only be this
 * worker's.
 */
function holdsRecord(item: Record<string, unknown> | undefined, record: AttemptRecord) {
  return (
    item !== undefined &&
    item.claim_token === undefined &&
    item.last_attempt === record.attempt &&
    item.last_attempted_at === record.attemptedAt
  );
}

/**
 * The attempt items of deliveries read from a list (their latest `keptAttemptRecords`, by
 * number: one BatchGetItem per 100), each delivery with its own. A page's cost stays its own.
 */
async function withAttempts(items: Record<string, unknown>[]): Promise<Delivery[]> {
  const wanted = items.flatMap((item) => {
    const next = Number(item.next_attempt);
    const first = Math.max(1, next - keptAttemptRecords);
    return Array.from({ length: next - first }, (_, index) =>
      keys.deliveryAttempt(String(item.id), first + index),
    );
  });
  const found = wanted.length === 0 ? [] : await batchGetAll(wanted);
  const byDelivery = new Map<string, AttemptItem[]>();
  for (const attempt of found) {
    const own = byDelivery.get(String(attempt.pk)) ?? [];
    own.push(attempt as unknown as AttemptItem);
    byDelivery.set(String(attempt.pk), own);
  }
  return items.map((item) => fromItem(item, byDelivery.get(keys.delivery(String(item.id)).pk)));
}

/** A delivery's place among its endpoint's deliveries: creation time, then id (unique). */
const createdKey = (delivery: Delivery) => `${delivery.createdAt}#${delivery.id}`;

/**
 * The sort-key condition of a creation window on a `created_at#id` key, both bounds exclusive:
 * every key created at `after` sorts below `after#~`, and every key created at `before` above
 * `before#`, so neither bound ever equals a key.
 */
function createdWindow(sortKey: 'gsi1sk' | 'gsi2sk', window: CreatedWindow): WorkRange {
  const after = window.createdAfter === undefined ? undefined : `${window.createdAfter}#~`;
  const before = window.createdBefore === undefined ? undefined : `${window.createdBefore}#`;
  if (after !== undefined && before !== undefined) {
    return {
      condition: ` AND ${sortKey} BETWEEN :after AND :before`,
      values: { ':after': after, ':before': before },
    };
  }
  if (after !== undefined)
    return { condition: ` AND ${sortKey} > :after`, values: { ':after': after } };
  if (before !== undefined) {
    return { condition: ` AND ${sortKey} < :before`, values: { ':before': before } };
  }
  return { condition: '', values: {} };
}

export const dynamoDeliveryRepository: DeliveryRepository = {
  async createMany(deliveries, { mayExist }) {
    if (!mayExist) {
      await putItems(deliveries.map(toItem));
      return deliveries;
    }
    // A repeated fan-out: keep every delivery that exists (it may be mid-attempt) and create
    // only the missing ones, each under a condition in case a concurrent fan-out races us.
    const found = await batchGetAll(
      deliveries.map((delivery) => keys.delivery(delivery.id)),
      { projection: 'id' },
    );
    const existing = new Set(found.map((item) => String(item.id)));
    const created = await Promise.all(
      deliveries
        .filter((delivery) => !existing.has(delivery.id))
        .map(async (delivery) => ((await putIfAbsent(toItem(delivery))) ? delivery : undefined)),
    );
    return created.filter((delivery) => delivery !== undefined);
  },

  async get(deliveryId) {
    const { pk, skPrefix } = keys.deliveryAttempts(deliveryId);
    const [item, own] = await Promise.all([
      getItem(keys.delivery(deliveryId)),
      query({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
        ScanIndexForward: false,
        Limit: keptAttemptRecords,
        ConsistentRead: true,
      }),
    ]);
    return item === undefined
      ? undefined
      : fromItem(item, (own.Items ?? []) as unknown as AttemptItem[]);
  },

  async claim(deliveryId, attempt, { token, now, dueBy, leaseUntil }) {
    // The attempts of a batch claim together and then read their targets: the reads wait for
    // every claim under way to answer, and go as one call (BatchedReader).
    const release = targetReads.hold();
    try {
      const result = await updateIf({
        Key: keys.delivery(deliveryId),
        UpdateExpression:
          'SET #status = :attempting, claim_token = :token, claim_attempt = :attempt, claim_expires_at = :lease, gsi2pk = :due, gsi2sk = :leaseIso ADD claim_count :one',
        // Pending for exactly this attempt and due — or a claim on this same attempt whose worker
        // outlived its lease (it died): taken over as the same attempt number.
        ConditionExpression:
          '(#status = :pending AND next_attempt = :attempt AND next_attempt_at <= :dueBy) OR (#status = :attempting AND claim_attempt = :attempt AND claim_expires_at <= :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':attempting': 'attempting',
          ':pending': 'pending',
          ':token': token,
          ':attempt': attempt,
          ':lease': leaseUntil,
          ':one': 1,
          // Its shard of the due index; a delivery listed before the index was sharded moves there.
          ':due': keys.dueDeliveries(deliveryId).gsi2pk,
          ':leaseIso': iso(leaseUntil),
          ':dueBy': dueBy,
          ':now': now,
        },
        ReturnValues: 'ALL_NEW',
      });
      return result.ok && result.attributes ? fromItem(result.attributes) : undefined;
    } finally {
      release();
    }
  },

  async loadTarget(delivery) {
    // The attempts that a worker's batch claims together read their targets together.
    const [event, endpoint] = await Promise.all([
      targetReads.read(keys.event(delivery.eventId)),
      targetReads.read(keys.webhookEndpoint(delivery.accountId, delivery.endpointId)),
    ]);
    return {
      event: event === undefined ? undefined : eventFromItem(event),
      endpoint: endpoint === undefined ? undefined : endpointFromItem(endpoint),
    };
  },

  async recordAttempt(delivery, claimToken, record, resolution) {
    // A pending delivery stays on the due index at its next time; a failed one moves to its
    // endpoint's failed deliveries (what recovery reads); a delivered one leaves gsi2.
    const index =
      resolution.status === 'pending'
        ? ', next_attempt_at = :at, gsi2sk = :atIso'
        : resolution.status === 'failed'
          ? ', gsi2pk = :failed, gsi2sk = :created'
          : '';
    // The record is an item of its own, written with the delivery's move in one transaction
    // under the claim: the delivery item stays small (the indexes copy it at every move), and a
    // worker whose claim was taken over writes neither.
    const outcome = await transactWrite({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: keys.delivery(delivery.id),
            UpdateExpression: [
              'SET #status = :status, next_attempt = claim_attempt + :one,',
              ' last_attempt = :attempt, last_attempted_at = :attemptedAt',
              index,
              ` REMOVE ${releaseClaim}, deferrals`,
              resolution.status === 'delivered' ? ', gsi2pk, gsi2sk' : '',
            ].join(''),
            ConditionExpression: 'claim_token = :token',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':status': resolution.status,
              ':one': 1,
              ':attempt': record.attempt,
              ':attemptedAt': record.attemptedAt,
              ':token': claimToken,
              ...(resolution.status === 'pending'
                ? { ':at': resolution.nextAttemptAt, ':atIso': iso(resolution.nextAttemptAt) }
                : {}),
              ...(resolution.status === 'failed'
                ? {
                    ':failed': keys.failedDeliveries(delivery.endpointId).gsi2pk,
                    ':created': createdKey(delivery),
                  }
                : {}),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        { Put: { TableName: tableName(), Item: attemptItem(delivery, record) } },
      ],
    });
    // The client retries a write whose answer it did not get; when that first try went through,
    // the retry finds the claim released and this very record last: recorded, not lost.
    return outcome.ok || holdsRecord(outcome.failedItem, record);
  },

  async defer(delivery, claimToken, until) {
    const result = await updateIf({
      Key: keys.delivery(delivery.id),
      UpdateExpression: `SET #status = :pending, next_attempt_at = :until, gsi2pk = :due, gsi2sk = :untilIso ADD deferrals :one REMOVE ${releaseClaim}`,
      ConditionExpression: 'claim_token = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':until': until,
        ':untilIso': iso(until),
        ':due': keys.dueDeliveries(delivery.id).gsi2pk,
        ':one': 1,
        ':token': claimToken,
      },
    });
    return result.ok;
  },

  async abandon(deliveryId, claimToken) {
    await updateIf({
      Key: keys.delivery(deliveryId),
      UpdateExpression: `SET #status = :failed, abandoned_reason = :reason REMOVE ${releaseClaim}, gsi2pk, gsi2sk`,
      ConditionExpression: 'claim_token = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':failed': 'failed',
        ':reason': 'endpoint or event deleted',
        ':token': claimToken,
      },
    });
  },

  async pause(delivery, claimToken) {
    // Off the due index (the sweeper must not keep re-queueing it) onto its endpoint's paused
    // deliveries, by when it was due: enabling the endpoint sends the oldest first.
    const result = await updateIf({
      Key: keys.delivery(delivery.id),
      UpdateExpression: `SET #status = :paused, gsi2pk = :pausedKey, gsi2sk = :dueIso REMOVE ${releaseClaim}`,
      ConditionExpression: 'claim_token = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':paused': 'paused',
        ':pausedKey': keys.pausedDeliveries(delivery.endpointId).gsi2pk,
        ':dueIso': iso(delivery.nextAttemptAt),
        ':token': claimToken,
      },
    });
    return result.ok;
  },

  async listPaused(endpointId, limit) {
    return (await queryWork(keys.pausedDeliveries(endpointId).gsi2pk, limit)).map((item) =>
      fromItem(item),
    );
  },

  async resume(deliveryId, now) {
    const result = await updateIf({
      Key: keys.delivery(deliveryId),
      UpdateExpression:
        'SET #status = :pending, next_attempt_at = :now, gsi2pk = :due, gsi2sk = :nowIso',
      ConditionExpression: '#status = :paused',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':paused': 'paused',
        ':now': now,
        ':nowIso': iso(now),
        ':due': keys.dueDeliveries(deliveryId).gsi2pk,
      },
    });
    return result.ok;
  },

  async reopen(delivery, now, attempts) {
    // Conditional on the state that was read: a concurrent attempt, retry or recovery makes this
    // a no-op, so two calls never give one delivery two ladders.
    let input: Pick<UpdateCommandInput, 'UpdateExpression' | 'ExpressionAttributeValues'>;
    if (delivery.status === 'pending') {
      input = {
        UpdateExpression: 'SET next_attempt_at = :now, gsi2sk = :nowIso',
        ExpressionAttributeValues: { ':now': now, ':nowIso': iso(now) },
      };
    } else {
      input = {
        UpdateExpression: [
          'SET #status = :pending, ladder_start = next_attempt, last_allowed_attempt = next_attempt + :more,',
          ' next_attempt_at = :now, gsi2pk = :due, gsi2sk = :nowIso',
        ].join(''),
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':more': attempts - 1,
          ':now': now,
          ':nowIso': iso(now),
          ':due': keys.dueDeliveries(delivery.id).gsi2pk,
        },
      };
    }
    const result = await updateIf({
      ...input,
      Key: keys.delivery(delivery.id),
      ConditionExpression: '#status = :status AND next_attempt = :next',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ...input.ExpressionAttributeValues,
        ':status': delivery.status,
        ':next': delivery.nextAttempt,
      },
      ReturnValues: 'ALL_NEW',
    });
    // Its attempts are those read with it: reopening records none.
    return result.ok && result.attributes
      ? { ...fromItem(result.attributes), attempts: delivery.attempts }
      : undefined;
  },

  async listForEndpoint(endpointId, filter, request) {
    const window = createdWindow('gsi1sk', filter);
    const partition = keys.endpointDeliveries(endpointId);
    const values: Record<string, unknown> = {
      ':pk': partition.gsi1pk,
      ...window.values,
    };
    const names: Record<string, string> = {};
    const conditions: string[] = [];
    if (filter.status !== undefined) {
      // Clients see a delivery being attempted, or waiting for its endpoint, as pending.
      names['#status'] = 'status';
      if (filter.status === 'pending') {
        conditions.push('#status IN (:pending, :attempting, :paused)');
        Object.assign(values, {
          ':pending': 'pending',
          ':attempting': 'attempting',
          ':paused': 'paused',
        });
      } else {
        conditions.push('#status = :status');
        values[':status'] = filter.status;
      }
    }
    if (filter.eventType !== undefined) {
      conditions.push('event_type = :type');
      values[':type'] = filter.eventType;
    }
    const input: QueryCommandInput = {
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: `gsi1pk = :pk${window.condition}`,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
    };
    if (conditions.length > 0) {
      input.FilterExpression = conditions.join(' AND ');
      if (Object.keys(names).length > 0) input.ExpressionAttributeNames = names;
    }
    const page = await queryPage(input, request, partition);
    return { ...page, items: await withAttempts(page.items) };
  },

  async listFailed(endpointId, window, limit) {
    const partition = keys.failedDeliveries(endpointId).gsi2pk;
    return (await queryWork(partition, limit, createdWindow('gsi2sk', window))).map((item) =>
      fromItem(item),
    );
  },

  async listDuePage(before, limit, cursor) {
    // From the previous page's last sort key, inclusive: deliveries due at that same millisecond
    // beyond the page are not skipped (one listed twice is queued twice, and claimed once).
    const range =
      cursor === undefined
        ? workBefore(iso(before))
        : {
            condition: ' AND gsi2sk BETWEEN :after AND :before',
            values: { ':after': cursor, ':before': iso(before) },
          };
    const due = await queryWorkShards(dueDeliveryPartitions(), limit, range);
    const last = due.at(-1)?.gsi2sk;
    const next = due.length === limit && typeof last === 'string' && last !== cursor;
    return { deliveries: due.map((item) => fromItem(item)), ...(next ? { cursor: last } : {}) };
  },
};
