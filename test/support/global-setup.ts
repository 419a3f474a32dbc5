import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../shared/local/dynamodb-local.js';

let dynamo: DynamoDbLocal | undefined;

/**
 * One in-memory DynamoDB Local for the domain and adapter tests of the whole run; each test file
 * creates its own table in it (test/support/table.ts), so files never see each other's data.
 */
export async function setup(project: TestProject): Promise<void> {
  const port = 18_000 + Math.floor(Math.random() * 2_000);
  dynamo = await startDynamoDbLocal(port);
  project.provide('dynamoEndpoint', dynamo.endpoint);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
