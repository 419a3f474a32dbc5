import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import {
  aroundDynamoCalls,
  type DynamoCall,
  dynamoClients,
  useDynamo,
} from '../../shared/adapters/dynamodb.js';
import type { WebhookEndpoint } from '../../shared/domain/webhooks/model.js';
import { responseForError } from '../../shared/http/responses.js';

/** What the client was asked, and what DynamoDB answers (a middleware that never sends). */
let calls: DynamoCall[] = [];
let answer: () => Promise<unknown> = async () => ({});
const transactions = () =>
  calls
    .filter((call) => call.operation === 'TransactWriteItems')
    .map((call) => call.input as { TransactItems: unknown[] });

const endpoint: WebhookEndpoint = {
  id: 'whk_count1',
  accountId: 'usr_count',
  url: 'https://r.example/hook',
  events: ['order.created'],
  secret: 'whsec_x',
  description: '',
  status: 'enabled',
  createdAt: '2026-03-01T12:00:00.000Z',
  updatedAt: '2026-03-01T12:00:00.000Z',
};

const cancelled =
  (...codes: string[]) =>
  async () => {
    throw new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: { httpStatusCode: 400 },
      CancellationReasons: codes.map((code) => ({ Code: code })),
    });
  };

beforeAll(() => {
  process.env.TABLE_NAME = 'service-table';
  const client = dynamoClients();
  aroundDynamoCalls(async (call) => {
    calls.push(call);
    return answer();
  }, client);
  useDynamo(client);
});

beforeEach(() => {
  calls = [];
  answer = async () => ({});
});

describe('the endpoint repository’s count of endpoints', () => {
  it('registers in one transaction: the count under the limit, then the endpoint', async () => {
    expect(await dynamoEndpointRepository.create(endpoint, 20)).toBe(true);

    expect(transactions()[0]?.TransactItems).toEqual([
      {
        Update: {
          TableName: 'service-table',
          Key: { pk: 'ACCOUNT#usr_count', sk: 'ENDPOINT_COUNT' },
          UpdateExpression: 'SET endpoint_count = if_not_exists(endpoint_count, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(endpoint_count) OR endpoint_count < :limit',
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': 20 },
        },
      },
      {
        Put: expect.objectContaining({
          Item: expect.objectContaining({ pk: 'ACCOUNT#usr_count', sk: 'ENDPOINT#whk_count1' }),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      },
    ]);
  });

  it('answers a registration that keeps losing the count to simultaneous ones with a conflict, not a 500', async () => {
    answer = cancelled('TransactionConflict', 'None');

    const refusal = await dynamoEndpointRepository
      .create(endpoint, 20)
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ reason: 'endpointsBusy' });
    const envelope = responseForError(refusal, 'req-1');
    expect(envelope.statusCode).toBe(409);
    expect(JSON.parse(envelope.body).error).toMatchObject({
      code: 'conflict',
      message: 'Other changes to this account’s webhook endpoints are in progress; try again',
    });
    // transactWrite's own retries came first.
    expect(transactions()).toHaveLength(5);
  });

  it('lets any other cancellation through as the error it is', async () => {
    answer = cancelled('ValidationError', 'None');

    await expect(dynamoEndpointRepository.delete('usr_count', 'whk_count1')).rejects.toBeInstanceOf(
      TransactionCanceledException,
    );
  });
});
