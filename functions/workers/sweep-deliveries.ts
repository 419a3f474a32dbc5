import { dynamoDeliveryRepository } from '../../shared/adapters/dynamo-deliveries.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { dynamoEventRepository } from '../../shared/adapters/dynamo-webhook-events.js';
import { deliveryQueue } from '../../shared/adapters/sqs-delivery-queue.js';
import { webhookRetryDelaysSeconds } from '../../shared/config.js';
import { systemClock } from '../../shared/domain/clock.js';
import {
  type SweepResult,
  sweepDeliveries,
} from '../../shared/domain/webhooks/sweep-deliveries.js';

/** Runs on a schedule (every 5 minutes, infra/service-stack.ts); locally every 5 seconds. */
export const handler = async (): Promise<SweepResult> =>
  sweepDeliveries({
    endpoints: dynamoEndpointRepository,
    events: dynamoEventRepository,
    deliveries: dynamoDeliveryRepository,
    queue: deliveryQueue(),
    clock: systemClock,
    retryDelaysSeconds: webhookRetryDelaysSeconds(),
  });
