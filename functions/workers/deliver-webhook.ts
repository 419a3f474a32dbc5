import { attemptMessageCodec } from '../../shared/adapters/attempt-message.js';
import { attemptDependencies } from '../../shared/adapters/webhook-deliveries-wiring.js';
import { attemptDelivery } from '../../shared/domain/webhooks/attempt-delivery.js';
import { queueWorker } from '../../shared/lambda/queue-worker.js';
import { log } from '../../shared/log.js';

/**
 * One attempt per SQS message, the batch's records in parallel. Only infrastructure errors
 * (DynamoDB unavailable…) fail a record, so SQS redelivers it; a duplicate, a failed attempt or
 * a malformed message is handled, and done.
 */
export const handler = queueWorker({
  codec: attemptMessageCodec,
  describe: (message) => ({ delivery_id: message.deliveryId, attempt: message.attempt }),
  handle: async (message) => {
    const result = await attemptDelivery(attemptDependencies(), message);
    log.info('delivery attempt', {
      delivery_id: message.deliveryId,
      attempt: message.attempt,
      result,
    });
    return 'done';
  },
});
