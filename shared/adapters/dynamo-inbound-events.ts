import { gunzipSync, gzipSync } from 'node:zlib';
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import { epochSeconds } from '../domain/clock.js';
import { ServiceError } from '../domain/errors.js';
import type {
  AttemptOutcome,
  InboundAttempt,
  InboundEventStatus,
  InboundRoute,
  InboundSource,
} from '../domain/inbound/model.js';
import type {
  InboundAttemptLog,
  InboundEventStore,
  StalledEvent,
} from '../domain/inbound/ports.js';
import { inboundSweepGraceMs } from '../domain/inbound/sweep-events.js';
import { dynamo } from './dynamodb.js';
import { ConditionalCheckFailed } from './dynamodb-client.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * Dedupe records live 35 days: gateways retry for up to 3 days (gateway B) or 24 hours
 * (gateway A), and the brief asks for at least 30; the margin covers a late manual resend.
 */
export const inboundEventRetentionSeconds = 35 * 24 * 60 * 60;

/** The audit trail of receiver calls is kept 90 days. */
export const inboundAttemptRetentionSeconds = 90 * 24 * 60 * 60;

/**
 * DynamoDB items stop at 400 KB; bodies up to 1 MiB are accepted, so the body is stored gzipped
 * (JSON shrinks 5–10×). One that is still too large after compression is refused with a 413.
 */
const maxStoredBodyBytes = 350_000;

const statusNames = { '#status': 'status', '#ttl': ttlAttribute };

const iso = (epochMs: number) => new Date(epochMs).toISOString();

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

async function currentState(source: InboundSource, eventId: string) {
  const { Item } = await dynamo().get({
    TableName: tableName(),
    Key: key(source, eventId),
    ConsistentRead: true,
  });
  return stateOf(Item);
}

/** The stored state behind a failed condition: from the error when DynamoDB returned it. */
async function stateAfterConditionFailure(
  error: ConditionalCheckFailed,
  source: InboundSource,
  eventId: string,
) {
  return error.item === undefined ? currentState(source, eventId) : stateOf(error.item);
}

export const dynamoInboundEventStore: InboundEventStore = {
  async record(event, now) {
    const compressed = gzipSync(event.rawBody);
    if (compressed.length > maxStoredBodyBytes) {
      throw new ServiceError('payload_too_large', 'The event body is too large to store', [
        { field: 'body', message: `must compress to at most ${maxStoredBodyBytes} bytes` },
      ]);
    }
    try {
      await dynamo().put({
        TableName: tableName(),
        Item: {
          ...key(event.source, event.eventId),
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
          ...keys.stalledInboundEvents(),
          gsi2sk: iso(now + inboundSweepGraceMs),
          [ttlAttribute]: epochSeconds(now) + inboundEventRetentionSeconds,
        },
        // New, or an expired record DynamoDB has not deleted yet (TTL deletes lazily).
        ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
        ExpressionAttributeNames: { '#ttl': ttlAttribute },
        ExpressionAttributeValues: { ':now': epochSeconds(now) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { created: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailed)) throw error;
      const state = await stateAfterConditionFailure(error, event.source, event.eventId);
      const status = state?.status ?? 'received';
      const stalled =
        status === 'received' || (status === 'processing' && (state?.leaseUntil ?? 0) < now);
      return { created: false, status, stalled };
    }
  },

  async claim(request, now, leaseUntil) {
    try {
      const { Attributes } = await dynamo().update({
        TableName: tableName(),
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
      const item = Attributes as Record<string, unknown>;
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
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailed)) throw error;
      const state = await stateAfterConditionFailure(error, request.source, request.eventId);
      if (state?.status === undefined || state.expiresAt <= epochSeconds(now)) {
        return { claimed: false, reason: 'missing' };
      }
      return { claimed: false, reason: state.status === 'processing' ? 'busy' : 'done' };
    }
  },

  async finish(request, status, result, now) {
    try {
      await dynamo().update({
        TableName: tableName(),
        Key: key(request.source, request.eventId),
        UpdateExpression:
          'SET #status = :status, #result = :result, processed_at = :at REMOVE lease_until, gsi2pk, gsi2sk',
        ConditionExpression: '#status = :processing',
        ExpressionAttributeNames: { '#status': 'status', '#result': 'result' },
        ExpressionAttributeValues: {
          ':status': status,
          ':result': result.slice(0, 500),
          ':at': new Date(now).toISOString(),
          ':processing': 'processing',
        },
      });
    } catch (error) {
      // Another worker took over after our lease ran out and finished first: nothing to add.
      if (!(error instanceof ConditionalCheckFailed)) throw error;
    }
  },

  async release(request) {
    try {
      await dynamo().update({
        TableName: tableName(),
        Key: key(request.source, request.eventId),
        UpdateExpression: 'SET #status = :received REMOVE lease_until',
        ConditionExpression: '#status = :processing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':received': 'received', ':processing': 'processing' },
      });
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailed)) throw error;
    }
  },

  async listStalled(now, limit) {
    const { Items = [] } = await dynamo().query({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :now',
      // The index holds whole items; the sweeper needs none of the (gzipped) bodies.
      ProjectionExpression: '#source, event_id, #status, gsi2sk, sweep_count',
      ExpressionAttributeNames: { '#source': 'source', '#status': 'status' },
      ExpressionAttributeValues: {
        ':pk': keys.stalledInboundEvents().gsi2pk,
        ':now': iso(now),
      },
      Limit: limit,
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
    return conditionally({
      TableName: tableName(),
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
  },

  async abandon(event, result, now) {
    return conditionally({
      TableName: tableName(),
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
  },
};

/** Sends a conditional update; false when its condition failed. */
async function conditionally(input: UpdateCommandInput): Promise<boolean> {
  try {
    await dynamo().update(input);
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailed) return false;
    throw error;
  }
}

/** The stored state of an inbound event, for tests and operators. */
export async function inboundEventState(
  source: InboundSource,
  eventId: string,
): Promise<{ status: InboundEventStatus; result?: string } | undefined> {
  const { Item } = await dynamo().get({
    TableName: tableName(),
    Key: key(source, eventId),
    ConsistentRead: true,
  });
  if (Item === undefined) return undefined;
  return {
    status: Item.status as InboundEventStatus,
    ...(typeof Item.result === 'string' ? { result: Item.result } : {}),
  };
}

interface AttemptItem {
  attempt_id: string;
  source: InboundSource;
  endpoint: string;
  received_at: string;
  outcome: AttemptOutcome;
  status_code: number;
  event_id?: string;
  sender_event_id?: string;
  event_type?: string;
  error_code?: string;
  request_id: string;
  source_ip: string;
}

const attemptOf = (item: AttemptItem): InboundAttempt => ({
  id: item.attempt_id,
  source: item.source,
  endpoint: item.endpoint,
  receivedAt: Date.parse(item.received_at),
  outcome: item.outcome,
  statusCode: item.status_code,
  requestId: item.request_id,
  sourceIp: item.source_ip,
  ...(item.event_id === undefined ? {} : { eventId: item.event_id }),
  ...(item.sender_event_id === undefined ? {} : { senderEventId: item.sender_event_id }),
  ...(item.event_type === undefined ? {} : { eventType: item.event_type }),
  ...(item.error_code === undefined ? {} : { errorCode: item.error_code }),
});

const encodeCursor = (key: Record<string, unknown>) =>
  Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

function decodeCursor(cursor: string): Record<string, unknown> {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof key === 'object' && key !== null) return key as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new ServiceError('invalid_request', 'The cursor is not valid', [
    { field: 'before', message: 'is not a cursor this service issued' },
  ]);
}

export const dynamoInboundAttemptLog: InboundAttemptLog = {
  async record(attempt) {
    const receivedAt = new Date(attempt.receivedAt).toISOString();
    await dynamo().put({
      TableName: tableName(),
      Item: {
        ...keys.inboundAttempt(attempt.source, attempt.id),
        ...keys.inboundAttemptsBySource(attempt.source),
        // Time first, so the index lists a source's attempts in order; the id keeps it unique.
        gsi1sk: `${receivedAt}#${attempt.id}`,
        kind: 'inbound_attempt',
        attempt_id: attempt.id,
        source: attempt.source,
        endpoint: attempt.endpoint,
        received_at: receivedAt,
        outcome: attempt.outcome,
        status_code: attempt.statusCode,
        event_id: attempt.eventId,
        sender_event_id: attempt.senderEventId,
        event_type: attempt.eventType,
        error_code: attempt.errorCode,
        request_id: attempt.requestId,
        source_ip: attempt.sourceIp,
        [ttlAttribute]: epochSeconds(attempt.receivedAt) + inboundAttemptRetentionSeconds,
      } satisfies AttemptItem & Record<string, unknown>,
    });
  },

  async listBySource(source, options = {}) {
    const { Items = [], LastEvaluatedKey } = await dynamo().query({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.inboundAttemptsBySource(source).gsi1pk },
      ScanIndexForward: false,
      Limit: Math.min(Math.max(options.limit ?? 50, 1), 100),
      ...(options.before === undefined ? {} : { ExclusiveStartKey: decodeCursor(options.before) }),
    });
    return {
      attempts: Items.map((item) => attemptOf(item as unknown as AttemptItem)),
      ...(LastEvaluatedKey === undefined ? {} : { next: encodeCursor(LastEvaluatedKey) }),
    };
  },
};
