import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';

let client: DynamoDBDocumentClient | undefined;

/**
 * Each attempt of a call gets 1 s to connect and 3 s to be answered, then fails and is retried
 * (3 attempts). Without a bound the SDK waits for ever: a DynamoDB that takes calls and never
 * answers (a network that drops packets) held a worker until its timeout and kept the socket for
 * good. A healthy call takes milliseconds; the bound is loose so that a loaded DynamoDB Local is
 * not retried (a retried conditional write can meet its own first application). An API request's
 * own deadline is the middy stack's, just before the function's timeout (api-handler.ts).
 */
const requestHandler = {
  connectionTimeout: 1_000,
  requestTimeout: 3_000,
  throwOnRequestTimeout: true,
};

/**
 * The DocumentClient every repository uses, built once per cold start. DYNAMODB_ENDPOINT points
 * it at DynamoDB Local (the local runtime and tests); on AWS it is unset.
 */
export function documentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(
    new DynamoDBClient(
      process.env.DYNAMODB_ENDPOINT
        ? { endpoint: process.env.DYNAMODB_ENDPOINT, requestHandler }
        : { requestHandler },
    ),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return client;
}

/** Replaces the client (tests, benchmarks that count calls). */
export function useDocumentClient(replacement: DynamoDBDocumentClient): void {
  client = replacement;
}

/** Every item a query matches, following LastEvaluatedKey across pages. */
export async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({ ...input, ExclusiveStartKey: cursor }),
    );
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
      const result = await documentClient().send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }),
      );
      requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
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
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: `gsi2pk = :pk${range?.condition ?? ''}`,
      ExpressionAttributeValues: { ':pk': partition, ...range?.values },
      Limit: limit,
    }),
  );
  return Items ?? [];
}
