import * as v from 'valibot';
import type { AttemptMessage } from '../domain/webhooks/model.js';

/**
 * The body of a delivery-queue message (also the Input of a retry schedule, which EventBridge
 * Scheduler sends to the queue as the message body): which delivery, which attempt.
 */
const AttemptMessageBody = v.object({
  delivery_id: v.pipe(v.string(), v.regex(/^dlv_[a-z2-7]{20}$/)),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

export const encodeAttemptMessage = (message: AttemptMessage): string =>
  JSON.stringify({ delivery_id: message.deliveryId, attempt: message.attempt });

/** Undefined for a body that is not an attempt message (it is dropped, never retried). */
export function decodeAttemptMessage(body: string): AttemptMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const result = v.safeParse(AttemptMessageBody, parsed);
  return result.success
    ? { deliveryId: result.output.delivery_id, attempt: result.output.attempt }
    : undefined;
}
