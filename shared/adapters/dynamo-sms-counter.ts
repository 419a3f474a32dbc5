import { tableName } from '../config.js';
import type { SmsCounter } from '../domain/otp/sms-cap.js';
import { dynamo } from './dynamodb.js';
import { ConditionalCheckFailed } from './dynamodb-client.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * The service's texts per clock hour as one item (`SMS_SENDS#<hour start>`): a conditional `ADD`,
 * so concurrent sends never count past the cap. One item takes every text of the service; its
 * write rate is the SMS rate, far below what one DynamoDB item sustains (1,000 writes/s).
 */
export const dynamoSmsCounter: SmsCounter = {
  async take(hourStart, cap) {
    try {
      const result = await dynamo().update({
        TableName: tableName(),
        Key: keys.smsSends(hourStart),
        UpdateExpression: 'ADD sends :one SET #ttl = if_not_exists(#ttl, :ttl)',
        ConditionExpression: 'attribute_not_exists(sends) OR sends < :cap',
        ExpressionAttributeNames: { '#ttl': ttlAttribute },
        ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':ttl': hourStart + 3600 + 60 },
        ReturnValues: 'UPDATED_NEW',
      });
      return Number(result.Attributes?.sends);
    } catch (error) {
      if (error instanceof ConditionalCheckFailed) return undefined;
      throw error;
    }
  },

  async giveBack(hourStart) {
    await dynamo()
      .update({
        TableName: tableName(),
        Key: keys.smsSends(hourStart),
        UpdateExpression: 'ADD sends :minusOne',
        ConditionExpression: 'sends > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      })
      .catch((error: unknown) => {
        // Nothing to give back (the hour's item expired): the count is already lower.
        if (!(error instanceof ConditionalCheckFailed)) throw error;
      });
  },

  async count(hourStart) {
    const result = await dynamo().get({
      TableName: tableName(),
      Key: keys.smsSends(hourStart),
      ProjectionExpression: 'sends',
      ConsistentRead: true,
    });
    return Number(result.Item?.sends ?? 0);
  },
};
