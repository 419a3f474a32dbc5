import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { EventType } from '../domain/event-types.js';
import type { WebhookEndpoint } from '../domain/webhooks/model.js';
import type { EndpointRepository } from '../domain/webhooks/ports.js';
import { documentClient, queryAll } from './dynamodb.js';
import { keys } from './keys.js';

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
 * Endpoints live in their account's partition (`ACCOUNT#id` / `ENDPOINT#id`): listing them for a
 * fan-out is one Query. The signing secret is stored as is — it is an HMAC key and must stay
 * readable to sign (the table is encrypted at rest).
 */
export const dynamoEndpointRepository: EndpointRepository = {
  async create(endpoint) {
    const item: EndpointItem & { kind: string } = {
      kind: 'webhook_endpoint',
      id: endpoint.id,
      account_id: endpoint.accountId,
      url: endpoint.url,
      events: endpoint.events,
      secret: endpoint.secret,
      created_at: endpoint.createdAt,
    };
    await documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.webhookEndpoint(endpoint.accountId, endpoint.id), ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
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
