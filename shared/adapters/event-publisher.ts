import { webhookRetryDelaysSeconds } from '../config.js';
import { systemClock } from '../domain/clock.js';
import {
  type PublishEventInput,
  type PublishedEvent,
  publishEvent as publish,
} from '../domain/webhooks/publish-event.js';
import { dynamoDeliveryRepository } from './dynamo-deliveries.js';
import { dynamoEndpointRepository } from './dynamo-webhook-endpoints.js';
import { dynamoEventRepository } from './dynamo-webhook-events.js';
import { deliveryQueue } from './sqs-delivery-queue.js';

/** Publishes an outbound event: what the rest of the platform calls (docs/webhooks.md). */
export type EventPublisher = (input: PublishEventInput) => Promise<PublishedEvent>;

/** publishEvent wired to DynamoDB and the delivery queue (SQS, or the local stand-in). */
export const publishEvent: EventPublisher = (input) =>
  publish(
    {
      endpoints: dynamoEndpointRepository,
      events: dynamoEventRepository,
      deliveries: dynamoDeliveryRepository,
      queue: deliveryQueue(),
      clock: systemClock,
      retryDelaysSeconds: webhookRetryDelaysSeconds(),
    },
    input,
  );

export type { PublishEventInput, PublishedEvent };
