import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import { ServiceError } from '../domain/errors.js';
import type { EventType } from '../domain/event-types.js';
import type { WebhookEndpoint } from '../domain/webhooks/model.js';
import type { EndpointRepository } from '../domain/webhooks/ports.js';
import { documentClient, queryAll } from './dynamodb.js';
import { keys } from './keys.js';
import { type TransactionOutcome, transactWrite } from './transactions.js';

interface EndpointItem {
  id: string;
  account_id: string;
  url: string;
  events: EventType[];
  secret: string;
  previous_secret?: string;
  previous_secret_expires_at?: number;
  created_at: string;
}

export const endpointFromItem = (item: Record<string, unknown>): WebhookEndpoint => {
  const stored = item as unknown as EndpointItem;
  return {
    id: stored.id,
    accountId: stored.account_id,
    url: stored.url,
    events: stored.events,
    secret: stored.secret,
    previousSecret: stored.previous_secret,
    previousSecretExpiresAt: stored.previous_secret_expires_at,
    createdAt: stored.created_at,
  };
};

/**
 * A transaction that moves the account's endpoint count. `transactWrite` retries a
 * TransactionConflict (another transaction on the count item at that moment) with jitter; one
 * that still loses after its retries met a burst of simultaneous changes to one account's
 * endpoints — the client's to retry (409), not a failure of ours (500).
 */
async function writeWithCount(input: TransactWriteCommandInput): Promise<TransactionOutcome> {
  try {
    return await transactWrite(input);
  } catch (error) {
    const reasons =
      error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
    if (reasons.some((reason) => reason.Code === 'TransactionConflict')) {
      throw new ServiceError(
        'conflict',
        'Other changes to this account’s webhook endpoints are in progress; try again',
        [],
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * Endpoints live in their account's partition (`ACCOUNT#id` / `ENDPOINT#id`): listing them for a
 * fan-out is one Query. The signing secret is stored as is — it is an HMAC key and must stay
 * readable to sign (the table is encrypted at rest).
 *
 * The account's endpoint count (`ACCOUNT#id` / `ENDPOINT_COUNT`) moves in the same transaction as
 * each put and delete: the cap is a condition on that item, so two registrations racing for the
 * last slot cannot both pass (a read-then-write count could).
 */
export const dynamoEndpointRepository: EndpointRepository = {
  async create(endpoint, limit) {
    const item: EndpointItem & { kind: string } = {
      kind: 'webhook_endpoint',
      id: endpoint.id,
      account_id: endpoint.accountId,
      url: endpoint.url,
      events: endpoint.events,
      secret: endpoint.secret,
      created_at: endpoint.createdAt,
    };
    const outcome = await writeWithCount({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: keys.webhookEndpointCount(endpoint.accountId),
            UpdateExpression: 'SET endpoint_count = if_not_exists(endpoint_count, :zero) + :one',
            ConditionExpression: 'attribute_not_exists(endpoint_count) OR endpoint_count < :limit',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limit },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.webhookEndpoint(endpoint.accountId, endpoint.id), ...item },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    if (outcome.ok) return true;
    if (outcome.failedIndex === 0) return false;
    throw new Error(`Webhook endpoint id ${endpoint.id} is taken`);
  },

  async listForAccount(accountId) {
    const { pk, skPrefix } = keys.accountEndpoints(accountId);
    const items = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    });
    return items.map(endpointFromItem);
  },

  async get(accountId, endpointId) {
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.webhookEndpoint(accountId, endpointId) }),
    );
    return Item === undefined ? undefined : endpointFromItem(Item);
  },

  async delete(accountId, endpointId) {
    const outcome = await writeWithCount({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: keys.webhookEndpoint(accountId, endpointId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: keys.webhookEndpointCount(accountId),
            UpdateExpression: 'SET endpoint_count = endpoint_count - :one',
            ConditionExpression: 'endpoint_count > :zero',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
          },
        },
      ],
    });
    if (outcome.ok) return true;
    if (outcome.failedIndex === 0) return false;
    // The endpoint exists but the count is 0 or absent: it was registered before endpoints were
    // counted, so there is no slot to give back — delete it alone rather than refuse.
    const { Attributes } = await documentClient().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.webhookEndpoint(accountId, endpointId),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes !== undefined;
  },

  async rotateSecret(accountId, endpointId, secret, previousExpiresAt) {
    try {
      const { Attributes } = await documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookEndpoint(accountId, endpointId),
          UpdateExpression:
            'SET previous_secret = secret, previous_secret_expires_at = :expires, secret = :secret',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':secret': secret, ':expires': previousExpiresAt },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes === undefined ? undefined : endpointFromItem(Attributes);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  },
};
