import type { BatchGetCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import { DynamoClient } from './dynamodb-client.js';

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
