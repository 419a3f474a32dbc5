import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';

let client: DynamoDBDocumentClient | undefined;

/**
 * The DocumentClient every repository uses, built once per cold start. DYNAMODB_ENDPOINT points
 * it at DynamoDB Local (the local runtime and tests); on AWS it is unset.
 */
export function documentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(
    new DynamoDBClient(
      process.env.DYNAMODB_ENDPOINT ? { endpoint: process.env.DYNAMODB_ENDPOINT } : {},
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
