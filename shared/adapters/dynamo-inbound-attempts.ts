import { tableName } from '../config.js';
import { epochSeconds } from '../domain/clock.js';
import type { AttemptOutcome, InboundAttempt, InboundSource } from '../domain/inbound/model.js';
import type { InboundAttemptLog } from '../domain/inbound/ports.js';
import { putIf, query } from './dynamodb.js';
import { inboundAttemptPartitions, keys } from './keys.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';
import { ttlAttribute } from './table-definition.js';

/**
 * The audit trail of receiver calls: one item per call (`INBOUND_ATTEMPT#<source>#<id>`), listed
 * per source newest first on gsi1.
 */

/** The audit trail of receiver calls is kept 90 days. */
const inboundAttemptRetentionSeconds = 90 * 24 * 60 * 60;

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

export const dynamoInboundAttemptLog: InboundAttemptLog = {
  async record(attempt) {
    const receivedAt = new Date(attempt.receivedAt).toISOString();
    await putIf({
      Item: {
        ...keys.inboundAttempt(attempt.source, attempt.id),
        ...keys.inboundAttemptsBySource(attempt.source, attempt.id),
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
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 100);
    const before =
      options.before === undefined ? undefined : decodeCursor(options.before, ['at']).k.at;
    // Each shard's newest `limit + 1` before the cursor, merged: the newest `limit` of them all,
    // and whether any is left.
    const shards = await Promise.all(
      inboundAttemptPartitions(source).map(async (partition) => {
        const { Items = [] } = await query({
          TableName: tableName(),
          IndexName: 'gsi1',
          KeyConditionExpression: `gsi1pk = :pk${before === undefined ? '' : ' AND gsi1sk < :before'}`,
          ExpressionAttributeValues: {
            ':pk': partition,
            ...(before === undefined ? {} : { ':before': before }),
          },
          ScanIndexForward: false,
          Limit: limit + 1,
        });
        return Items;
      }),
    );
    const merged = shards.flat().sort((a, b) => (String(a.gsi1sk) < String(b.gsi1sk) ? 1 : -1));
    const page = merged.slice(0, limit);
    const last = page.at(-1);
    return {
      attempts: page.map((item) => attemptOf(item as unknown as AttemptItem)),
      ...(merged.length > limit && last !== undefined
        ? { next: encodeCursor({ k: { at: String(last.gsi1sk) }, n: 0 }) }
        : {}),
    };
  },
};
