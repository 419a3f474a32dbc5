import type { SmsCounter } from '../domain/otp/sms-cap.js';
import { batchGetAll, updateIf } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * The service's texts per clock hour in shards (`SMS_SENDS#<hour start>#<shard>`): each a
 * conditional `ADD` under its part of the cap, so concurrent sends never count past it, and no
 * one item takes every text of the service (`smsCountShards` says the rate this allows).
 */
export const dynamoSmsCounter: SmsCounter = {
  async take(hourStart, shard, cap) {
    const result = await updateIf({
      Key: keys.smsSends(hourStart, shard),
      UpdateExpression: 'ADD sends :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression: 'attribute_not_exists(sends) OR sends < :cap',
      ExpressionAttributeNames: { '#ttl': ttlAttribute },
      ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':ttl': hourStart + 3600 + 60 },
      ReturnValues: 'UPDATED_NEW',
    });
    return result.ok ? Number(result.attributes?.sends) : undefined;
  },

  async giveBack(hourStart, shard) {
    // Refused when there is nothing to give back (the hour's item expired): the count is already
    // lower.
    await updateIf({
      Key: keys.smsSends(hourStart, shard),
      UpdateExpression: 'ADD sends :minusOne',
      ConditionExpression: 'sends > :zero',
      ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
    });
  },

  async counts(hourStart, shards) {
    const shardKeys = Array.from({ length: shards }, (_, shard) => keys.smsSends(hourStart, shard));
    const items = await batchGetAll(shardKeys, { consistent: true, projection: 'pk, sends' });
    const byPk = new Map(items.map((item) => [String(item.pk), Number(item.sends ?? 0)]));
    return shardKeys.map((key) => byPk.get(key.pk) ?? 0);
  },
};
