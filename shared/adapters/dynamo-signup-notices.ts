import { randomUUID } from 'node:crypto';
import type { SignupNotices } from '../domain/accounts/ports.js';
import { epochSeconds } from '../domain/clock.js';
import { deleteIf, putIf } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * `SIGNUP_NOTICE#<email>`: the reservation of the last notice, with its end (`notice_until`, epoch
 * ms, checked in the condition: TTL deletion lags and DynamoDB Local never deletes) and a random
 * token, so only the reservation that failed to send gives itself back. One conditional PutItem
 * reserves; one conditional DeleteItem releases.
 */
export const dynamoSignupNotices: SignupNotices = {
  async reserve(email, now, until) {
    const token = randomUUID();
    const reserved = await putIf({
      Item: {
        ...keys.signupNotice(email),
        claim_token: token,
        notice_until: until,
        [ttlAttribute]: epochSeconds(until),
      },
      ConditionExpression: 'attribute_not_exists(pk) OR notice_until <= :now',
      ExpressionAttributeValues: { ':now': now },
    });
    return reserved.ok ? token : undefined;
  },

  async release(email, token) {
    // Refused when another reservation replaced ours (ours had run out): not ours to remove.
    await deleteIf({
      Key: keys.signupNotice(email),
      ConditionExpression: 'claim_token = :token',
      ExpressionAttributeValues: { ':token': token },
    });
  },
};
