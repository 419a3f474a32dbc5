import { attemptMessageCodec } from '../../shared/adapters/attempt-message.js';
import { dynamoAccountDirectory } from '../../shared/adapters/dynamo-account-directory.js';
import { dynamoDeliveryRepository } from '../../shared/adapters/dynamo-deliveries.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { retryScheduler } from '../../shared/adapters/eventbridge-retry-scheduler.js';
import { httpsWebhookSender } from '../../shared/adapters/https-webhook-sender.js';
import { mailer } from '../../shared/adapters/ses-mailer.js';
import { deliveryQueue } from '../../shared/adapters/sqs-delivery-queue.js';
import { webhookDisableAfterDays, webhookRetryDelaysSeconds } from '../../shared/config.js';
import { systemClock } from '../../shared/domain/clock.js';
import {
  type AttemptDependencies,
  attemptDelivery,
} from '../../shared/domain/webhooks/attempt-delivery.js';
import { queueWorker } from '../../shared/lambda/queue-worker.js';
import { log } from '../../shared/log.js';

const dependencies = (): AttemptDependencies => ({
  deliveries: dynamoDeliveryRepository,
  endpoints: dynamoEndpointRepository,
  accounts: dynamoAccountDirectory,
  queue: deliveryQueue(),
  scheduler: retryScheduler(),
  sender: httpsWebhookSender,
  mailer: mailer(),
  clock: systemClock,
  retryDelaysSeconds: webhookRetryDelaysSeconds(),
  disableAfterDays: webhookDisableAfterDays(),
});

/**
 * One attempt per SQS message, the batch's records in parallel. Only infrastructure errors
 * (DynamoDB unavailable…) fail a record, so SQS redelivers it; a duplicate, a failed attempt or
 * a malformed message is handled, and done.
 */
export const handler = queueWorker({
  codec: attemptMessageCodec,
  describe: (message) => ({ delivery_id: message.deliveryId, attempt: message.attempt }),
  handle: async (message) => {
    const result = await attemptDelivery(dependencies(), message);
    log.info('delivery attempt', {
      delivery_id: message.deliveryId,
      attempt: message.attempt,
      result,
    });
    return 'done';
  },
});
