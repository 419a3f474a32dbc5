import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
