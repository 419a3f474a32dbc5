import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { SignupNotices } from '../domain/accounts/ports.js';
import { epochSeconds } from '../domain/clock.js';
import { documentClient } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

const isRefusal = (error: unknown) => error instanceof ConditionalCheckFailedException;

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
      await documentClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keys.signupNotice(email),
            claim_token: token,
            notice_until: until,
            [ttlAttribute]: epochSeconds(until),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR notice_until <= :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      );
      return token;
    } catch (error) {
      if (isRefusal(error)) return undefined;
      throw error;
    }
  },

  async release(email, token) {
    try {
      await documentClient().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.signupNotice(email),
          ConditionExpression: 'claim_token = :token',
          ExpressionAttributeValues: { ':token': token },
        }),
      );
    } catch (error) {
      // Another reservation replaced ours (ours had run out): it is not ours to remove.
      if (!isRefusal(error)) throw error;
    }
  },
};
