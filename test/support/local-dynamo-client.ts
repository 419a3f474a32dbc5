import { type DynamoClients, dynamoClients } from '../../shared/adapters/dynamodb.js';

/**
 * The clients a test reads and writes DynamoDB Local with, directly: a JVM sharing the
 * machine with the service and the other test files, which under load connects and answers in
 * seconds where DynamoDB takes milliseconds (an attempt may take 30 s; the service's clients give
 * up after 3 s, as on AWS), and which answers a 500 "timed out waiting for a lock" to concurrent
 * transactions that DynamoDB would run (10 attempts, not 4). The service under test keeps the
 * settings it has on AWS.
 */
export const localDynamoClient = (endpoint: string): DynamoClients =>
  dynamoClients({
    endpoint,
    connectionTimeoutMs: 30_000,
    silenceTimeoutMs: 30_000,
    maxAttempts: 10,
  });
