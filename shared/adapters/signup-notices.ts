import { randomUUID } from 'node:crypto';
import { tableName } from '../config.js';
import type { SignupNotices } from '../domain/accounts/ports.js';
import { epochSeconds } from '../domain/clock.js';
import { dynamo } from './dynamodb.js';
import { ConditionalCheckFailed } from './dynamodb-client.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

const isRefusal = (error: unknown) => error instanceof ConditionalCheckFailed;

/**
 * `SIGNUP_NOTICE#<email>`: the reservation of the last notice, with its end (`notice_until`, epoch
 * ms, checked in the condition: TTL deletion lags and DynamoDB Local never deletes) and a random
 * token, so only the reservation that failed to send gives itself back. One conditional PutItem
 * reserves; one conditional DeleteItem releases.
 */
export const dynamoSignupNotices: SignupNotices = {
  async reserve(email, now, until) {
    const token = randomUUID();
    try {
      await dynamo().put({
        TableName: tableName(),
        Item: {
          ...keys.signupNotice(email),
          claim_token: token,
          notice_until: until,
          [ttlAttribute]: epochSeconds(until),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR notice_until <= :now',
        ExpressionAttributeValues: { ':now': now },
      });
      return token;
    } catch (error) {
      if (isRefusal(error)) return undefined;
      throw error;
    }
  },

  async release(email, token) {
    try {
      await dynamo().delete({
        TableName: tableName(),
        Key: keys.signupNotice(email),
        ConditionExpression: 'claim_token = :token',
        ExpressionAttributeValues: { ':token': token },
      });
    } catch (error) {
      // Another reservation replaced ours (ours had run out): it is not ours to remove.
      if (!isRefusal(error)) throw error;
    }
  },
};
