import type { GenericSmsCounter } from '../domain/otp/generic-sms.js';
import { updateIf } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * An account's generic texts as one item per UTC day (`GENERIC_SMS#<user>` / `<day start>`):
 * `texts` counted, and `numbers_<hour start>` the set of numbers texted in each hour. One
 * conditional write decides both limits, so concurrent sends never pass either.
 */
export const dynamoGenericSmsCounter: GenericSmsCounter = {
  async take(userId, phone, at, limits) {
    const result = await updateIf({
      Key: keys.genericSms(userId, at.dayStart),
      UpdateExpression: 'ADD texts :one, #numbers :number SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression:
        '(attribute_not_exists(texts) OR texts < :perDay) AND (attribute_not_exists(#numbers) OR contains(#numbers, :phone) OR size(#numbers) < :perHour)',
      ExpressionAttributeNames: { '#numbers': `numbers_${at.hourStart}`, '#ttl': ttlAttribute },
      ExpressionAttributeValues: {
        ':one': 1,
        ':number': new Set([phone]),
        ':phone': phone,
        ':perDay': limits.perDay,
        ':perHour': limits.numbersPerHour,
        ':ttl': at.dayStart + 86_400 + 60,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (result.ok) return undefined;
    return Number(result.item?.texts ?? 0) >= limits.perDay ? 'texts' : 'numbers';
  },

  async giveBack(userId, dayStart) {
    await updateIf({
      Key: keys.genericSms(userId, dayStart),
      UpdateExpression: 'ADD texts :minusOne',
      ConditionExpression: 'texts > :zero',
      ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
    });
  },
};
