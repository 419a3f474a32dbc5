import * as v from 'valibot';
import type { AttemptMessage } from '../domain/webhooks/model.js';
import { messageCodec } from './message-codec.js';

/**
 * The body of a delivery-queue message (also the Input of a retry schedule, which EventBridge
 * Scheduler sends to the queue as the message body): which delivery, which attempt.
 */
const AttemptMessageBody = v.object({
  delivery_id: v.pipe(v.string(), v.regex(/^dlv_[a-z2-7]{20}$/)),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export const attemptMessageCodec = messageCodec(AttemptMessageBody, {
  toBody: (message: AttemptMessage) => ({
    delivery_id: message.deliveryId,
    attempt: message.attempt,
  }),
  fromBody: (body): AttemptMessage => ({ deliveryId: body.delivery_id, attempt: body.attempt }),
});
