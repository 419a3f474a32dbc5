import { tableName } from '../config.js';
import type { AccountDirectory } from '../domain/webhooks/ports.js';
import { dynamo } from './dynamodb.js';
import { keys } from './keys.js';

/** The account's email, read from its user item (the accounts area owns that item). */
export const dynamoAccountDirectory: AccountDirectory = {
  async emailOf(accountId) {
    const { Item } = await dynamo().get({
      TableName: tableName(),
      Key: keys.user(accountId),
      ProjectionExpression: 'email',
    });
    return typeof Item?.email === 'string' ? Item.email : undefined;
  },
};
