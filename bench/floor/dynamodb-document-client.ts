/**
 * The floor of every function's cold start: a bundle holding only the DynamoDB DocumentClient,
 * built at module scope as the service's adapters build theirs. A handler's import time is read
 * as a ratio to this one's.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
