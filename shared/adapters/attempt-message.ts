import * as v from 'valibot';
import type { AttemptMessage, LadderWake } from '../domain/webhooks/model.js';
import { messageCodec } from './message-codec.js';

/** One attempt: which delivery, which attempt. */
const AttemptMessageBody = v.object({
  delivery_id: v.pipe(v.string(), v.regex(/^dlv_[a-z2-7]{20}$/)),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

/** The retry ladder's wake-up for a due minute: the Input of that minute's one-time schedule. */
const LadderWakeBody = v.object({
  due_minute: v.pipe(v.string(), v.isoTimestamp()),
});

/** What the delivery queue carries. */
export type DeliveryQueueMessage = AttemptMessage | LadderWake;

export const isLadderWake = (message: DeliveryQueueMessage): message is LadderWake =>
  'dueMinute' in message;

/**
 * The body of a delivery-queue message: an attempt (sent by the service), or a ladder wake-up
 * (sent by EventBridge Scheduler, as the schedule's Input).
 */
export const deliveryQueueCodec = messageCodec(v.union([AttemptMessageBody, LadderWakeBody]), {
  toBody: (message: DeliveryQueueMessage) =>
    isLadderWake(message)
      ? { due_minute: new Date(message.dueMinute).toISOString() }
      : { delivery_id: message.deliveryId, attempt: message.attempt },
  fromBody: (body): DeliveryQueueMessage =>
    'due_minute' in body
      ? { dueMinute: Date.parse(body.due_minute) }
      : { deliveryId: body.delivery_id, attempt: body.attempt },
});
