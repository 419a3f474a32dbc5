import { epochSeconds } from '../domain/clock.js';

/**
 * The single table, declared once: the CDK stack and the local runtime (DynamoDB Local) both
 * build it from this definition, so they cannot drift apart.
 *
 * Generic key names (pk/sk, gsi1pk/gsi1sk, gsi2pk/gsi2sk) carry entity-specific values built in
 * keys.ts; each index is named after the access pattern it serves.
 */
export const tableKeys = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** DynamoDB deletes an item some time after this epoch-seconds attribute passes (lazily). */
export const ttlAttribute = 'expires_at';

/**
 * The TTL of an item whose expiry (epoch ms) its readers check in code: a minute past it, so
 * DynamoDB never deletes one that a reader would still take as live.
 */
export const ttlPast = (expiresAtMs: number): number => epochSeconds(expiresAtMs) + 60;

/**
 * What an index copies of each item besides the keys: `KEYS_ONLY`, or `INCLUDE` of the attributes
 * its readers show. Every write to an item listed in an index writes the index entry too, at the
 * entry's size: an index that projects ALL doubles the cost of every write of every large item
 * it lists. An index may project ALL only with `allBecause` saying why (a test holds this).
 */
export type IndexProjection =
  | { type: 'KEYS_ONLY' }
  | { type: 'INCLUDE'; attributes: readonly string[] }
  | { type: 'ALL'; allBecause: string };

export const tableIndexes = [
  {
    /**
     * Items listed under one parent in time order: an endpoint's deliveries, a receiver source's
     * audit records. (A user's sessions are not here: they sit in the user's own partition of the
     * table, so listing them is a strongly consistent Query with no index lag.) Its lists show
     * what the entries carry, and filter on it (a delivery's status and event type), so it
     * includes the attributes their views read: a page is one Query, and no item is read twice.
     */
    indexName: 'gsi1',
    partitionKey: 'gsi1pk',
    sortKey: 'gsi1sk',
    projection: {
      type: 'INCLUDE',
      attributes: [
        // A delivery, as the deliveries list shows it (dynamo-deliveries.ts `fromItem`), with
        // `attempts` for the deliveries written when attempts were kept on the delivery item.
        'id',
        'event_id',
        'event_type',
        'endpoint_id',
        'account_id',
        'status',
        'next_attempt',
        'next_attempt_at',
        'last_allowed_attempt',
        'ladder_start',
        'attempts',
        'created_at',
        // A receiver's audit record (dynamo-inbound-attempts.ts `attemptOf`).
        'attempt_id',
        'source',
        'endpoint',
        'received_at',
        'outcome',
        'status_code',
        'sender_event_id',
        'error_code',
        'request_id',
        'source_ip',
      ],
    },
  },
  {
    /**
     * Work by time (sparse): overdue deliveries, unfinished fan-outs, stalled inbound events, and
     * per endpoint the deliveries waiting for it to be enabled or to be recovered. Each queue is
     * spread over eight partitions (`<queue>#<0..7>`, `keys.ts`), written in bursts by requests;
     * the sweepers read all eight at once. Keys only: each reader fetches the items it acts on
     * (BatchGetItem, `queryWork`), and the events, inbound bodies and deliveries moving through
     * these queues are not copied into the index at every step.
     */
    indexName: 'gsi2',
    partitionKey: 'gsi2pk',
    sortKey: 'gsi2sk',
    projection: { type: 'KEYS_ONLY' },
  },
] as const satisfies readonly {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  projection: IndexProjection;
}[];

export type IndexName = (typeof tableIndexes)[number]['indexName'];
