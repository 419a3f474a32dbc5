import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { WindowCounter } from '../domain/rate-limit.js';
import { documentClient } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/** Rate-limit counters as DynamoDB items: one atomic ADD per hit, expired by TTL. */
export const dynamoWindowCounter: WindowCounter = {
  async hit(scope, client, windowStart, expiresAt) {
    const result = await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateCounter(scope, client, windowStart),
        UpdateExpression: 'ADD hits :one SET #ttl = if_not_exists(#ttl, :ttl)',
        ExpressionAttributeNames: { '#ttl': ttlAttribute },
        ExpressionAttributeValues: { ':one': 1, ':ttl': expiresAt },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.hits ?? 1);
  },
};
