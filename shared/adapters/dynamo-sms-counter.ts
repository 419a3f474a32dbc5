import type { SmsCounter } from '../domain/otp/sms-cap.js';
import { getItem, updateIf } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * The service's texts per clock hour as one item (`SMS_SENDS#<hour start>`): a conditional `ADD`,
 * so concurrent sends never count past the cap. One item takes every text of the service; its
 * write rate is the SMS rate, far below what one DynamoDB item sustains (1,000 writes/s).
 */
export const dynamoSmsCounter: SmsCounter = {
  async take(hourStart, cap) {
    const result = await updateIf({
      Key: keys.smsSends(hourStart),
      UpdateExpression: 'ADD sends :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression: 'attribute_not_exists(sends) OR sends < :cap',
      ExpressionAttributeNames: { '#ttl': ttlAttribute },
      ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':ttl': hourStart + 3600 + 60 },
      ReturnValues: 'UPDATED_NEW',
    });
    return result.ok ? Number(result.attributes?.sends) : undefined;
  },

  async giveBack(hourStart) {
    // Refused when there is nothing to give back (the hour's item expired): the count is already
    // lower.
    await updateIf({
      Key: keys.smsSends(hourStart),
      UpdateExpression: 'ADD sends :minusOne',
      ConditionExpression: 'sends > :zero',
      ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
    });
  },

  async count(hourStart) {
    const item = await getItem(keys.smsSends(hourStart), { projection: 'sends' });
    return Number(item?.sends ?? 0);
  },
};
