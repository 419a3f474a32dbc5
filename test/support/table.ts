import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { useDynamo } from '../../shared/adapters/dynamodb.js';
import { ensureTable } from '../../shared/local/dynamodb-local.js';
import { localDynamoClient } from './local-dynamo-client.js';

/**
 * Points this test file's repositories at a fresh table in the shared DynamoDB Local, and
 * returns its name. Call it in beforeAll.
 */
export async function useFreshTable(): Promise<string> {
  const endpoint = inject('dynamoEndpoint');
  const name = `test-${randomUUID()}`;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.TABLE_NAME = name;
  const admin = new DynamoDBClient({ endpoint });
  await ensureTable(admin, name);
  admin.destroy();
  useDynamo(localDynamoClient(endpoint));
  return name;
}
