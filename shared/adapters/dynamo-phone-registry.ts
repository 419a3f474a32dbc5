import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { PhoneRegistry } from '../domain/otp/operations.js';
import { dynamo } from './dynamodb.js';
import { keys } from './keys.js';

/** Registration of a phone is the presence of its uniqueness guard: one strongly consistent read. */
export const dynamoPhoneRegistry: PhoneRegistry = {
  async isRegistered(phone) {
    const result = await dynamo().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.phoneGuard(phone),
        ProjectionExpression: 'pk',
        ConsistentRead: true,
      }),
    );
    return result.Item !== undefined;
  },
};
