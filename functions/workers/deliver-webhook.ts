import { deliveryQueueCodec, isLadderWake } from '../../shared/adapters/attempt-message.js';
import { attemptDependencies } from '../../shared/adapters/webhook-deliveries-wiring.js';
import { attemptDelivery } from '../../shared/domain/webhooks/attempt-delivery.js';
import { sweepDueMinute } from '../../shared/domain/webhooks/sweep-deliveries.js';
import { queueWorker } from '../../shared/lambda/queue-worker.js';
import { log } from '../../shared/log.js';

/**
 * One attempt per SQS message, the batch's records in parallel; a ladder wake-up (a due minute's
 * schedule fired) queues that minute's attempts. Only infrastructure errors (DynamoDB
 * unavailable…) fail a record, so SQS redelivers it; a duplicate, a failed attempt or a malformed
 * message is handled, and done.
 */
export const handler = queueWorker({
  codec: deliveryQueueCodec,
  describe: (message) =>
    isLadderWake(message)
      ? { due_minute: new Date(message.dueMinute).toISOString() }
      : { delivery_id: message.deliveryId, attempt: message.attempt },
  handle: async (message) => {
    if (isLadderWake(message)) {
      await sweepDueMinute(attemptDependencies(), message);
      return 'done';
    }
    const result = await attemptDelivery(attemptDependencies(), message);
    log.info('delivery attempt', {
      delivery_id: message.deliveryId,
      attempt: message.attempt,
      result,
    });
    return 'done';
  },
});
