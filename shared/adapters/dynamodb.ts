import type { BatchGetCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import { DynamoClient, type Item } from './dynamodb-client.js';
import type { ItemKey } from './keys.js';

let client: DynamoClient | undefined;

/**
 * The DynamoDB client every repository uses, built once per cold start. DYNAMODB_ENDPOINT points
 * it at DynamoDB Local (the local runtime and tests); on AWS it is unset.
 */
export function dynamo(): DynamoClient {
  client ??= new DynamoClient();
  return client;
}

/** Replaces the client (tests pointing at their own table or DynamoDB Local). */
export function useDynamo(replacement: DynamoClient): void {
  client = replacement;
}

/** Every item a query matches, following LastEvaluatedKey across pages. */
export async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().query({ ...input, ExclusiveStartKey: cursor });
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor !== undefined);
  return items;
}

/** Deletes the items, 25 per BatchWriteItem, resending what DynamoDB hands back (throttling). */
export async function deleteItems(itemKeys: { pk: string; sk: string }[]): Promise<void> {
  for (let start = 0; start < itemKeys.length; start += 25) {
    let requests = itemKeys
      .slice(start, start + 25)
      .map((key) => ({ DeleteRequest: { Key: key } }));
    while (requests.length > 0) {
      const result = await dynamo().batchWrite({ RequestItems: { [tableName()]: requests } });
      requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  }
}

const pause = (attempt: number) =>
  new Promise((resume) => setTimeout(resume, 20 * 2 ** attempt + Math.random() * 20));

/** BatchGetItem on the table, re-asking with backoff for keys it left unprocessed (throttling). */
export async function batchGetAll(
  request: NonNullable<BatchGetCommandInput['RequestItems']>[string],
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let pending: typeof request | undefined = request;
  for (let attempt = 0; pending !== undefined && (pending.Keys?.length ?? 0) > 0; attempt++) {
    if (attempt > 0) await pause(attempt);
    if (attempt > 8) throw new Error('BatchGetItem left keys unprocessed');
    const result = await dynamo().batchGet({ RequestItems: { [tableName()]: pending } });
    found.push(...(result.Responses?.[tableName()] ?? []));
    pending = result.UnprocessedKeys?.[tableName()];
  }
  return found;
}

/**
 * Strongly consistent reads of single items, gathered into BatchGetItem calls: the reads asked
 * for in one turn of the event loop (concurrent work whose previous call answered in the same
 * I/O phase: the attempts of a worker's batch after their claims) go as one call, each key once.
 * Every read is sent after it was asked for, so whatever a caller wrote before asking is seen.
 */
export class BatchedReader {
  private waiting = new Map<string, { key: ItemKey; readers: ((item?: Item) => void)[] }>();
  private failures: ((error: unknown) => void)[] = [];

  read(key: ItemKey): Promise<Item | undefined> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) setImmediate(() => void this.flush());
      const id = `${key.pk}\u0000${key.sk}`;
      const entry = this.waiting.get(id) ?? { key, readers: [] };
      entry.readers.push(resolve);
      this.waiting.set(id, entry);
      this.failures.push(reject);
    });
  }

  private async flush(): Promise<void> {
    const entries = [...this.waiting.values()];
    const failures = this.failures;
    this.waiting = new Map();
    this.failures = [];
    try {
      const found = new Map<string, Item>();
      for (let start = 0; start < entries.length; start += 100) {
        const items = await batchGetAll({
          Keys: entries.slice(start, start + 100).map((entry) => entry.key),
          ConsistentRead: true,
        });
        for (const item of items) found.set(`${item.pk}\u0000${item.sk}`, item);
      }
      for (const { key, readers } of entries) {
        for (const resolve of readers) resolve(found.get(`${key.pk}\u0000${key.sk}`));
      }
    } catch (error) {
      for (const reject of failures) reject(error);
    }
  }
}

/** A condition on gsi2sk, added to a gsi2 partition's key condition. */
export interface WorkRange {
  /** E.g. ` AND gsi2sk < :before`: starts with its AND. */
  condition: string;
  values: Record<string, string>;
}

/** Sort keys strictly below `bound`. */
export const workBefore = (bound: string): WorkRange => ({
  condition: ' AND gsi2sk < :before',
  values: { ':before': bound },
});

/**
 * The first `limit` items of one gsi2 partition, oldest first, within `range` when given: how each
 * queue of work kept on gsi2 is read (overdue deliveries, stalled fan-outs, an endpoint's paused
 * and failed deliveries, endpoints to resume). One page: the caller takes the rest next time.
 */
export async function queryWork(
  tableName: string,
  partition: string,
  limit: number,
  range?: WorkRange,
): Promise<Record<string, unknown>[]> {
  const { Items } = await dynamo().query({
    TableName: tableName,
    IndexName: 'gsi2',
    KeyConditionExpression: `gsi2pk = :pk${range?.condition ?? ''}`,
    ExpressionAttributeValues: { ':pk': partition, ...range?.values },
    Limit: limit,
  });
  return Items ?? [];
}
