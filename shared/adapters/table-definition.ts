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

export const tableIndexes = [
  {
    /**
     * Items listed under one parent in time order: an endpoint's deliveries, a receiver source's
     * audit records. (A user's sessions are not here: they sit in the user's own partition of the
     * table, so listing them is a strongly consistent Query with no index lag.)
     */
    indexName: 'gsi1',
    partitionKey: 'gsi1pk',
    sortKey: 'gsi1sk',
  },
  {
    /**
     * Work by time (sparse): overdue deliveries, unfinished fan-outs, stalled inbound events, and
     * per endpoint the deliveries waiting for it to be enabled or to be recovered. The due
     * deliveries are spread over eight partitions (`DELIVERIES_DUE#<0..7>`, `keys.ts`): a large
     * fan-out writes them in a burst, more than one index partition takes; the sweeper reads all
     * eight at once.
     */
    indexName: 'gsi2',
    partitionKey: 'gsi2pk',
    sortKey: 'gsi2sk',
  },
] as const;

export type IndexName = (typeof tableIndexes)[number]['indexName'];
