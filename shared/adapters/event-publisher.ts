import { webhookRetryDelaysSeconds } from '../config.js';
import { systemClock } from '../domain/clock.js';
import type { WebhookDependencies } from '../domain/webhooks/ports.js';
import {
  type PublishEventInput,
  type PublishedEvent,
  publishEvent as publish,
} from '../domain/webhooks/publish-event.js';
import { dynamoDeliveryRepository } from './dynamo-deliveries.js';
import { dynamoEndpointRepository } from './dynamo-webhook-endpoints.js';
import { dynamoEventRepository } from './dynamo-webhook-events.js';
import { deliveryQueue } from './sqs-delivery-queue.js';

export type FanOutDependencies = Pick<
  WebhookDependencies,
  'endpoints' | 'events' | 'deliveries' | 'queue' | 'clock' | 'retryDelaysSeconds'
>;

/**
 * What fanning an event out to its endpoints needs, wired to DynamoDB and the delivery queue
 * (SQS, or the local stand-in): publication, test events and the sweeper all use it.
 */
export const fanOutDependencies = (): FanOutDependencies => ({
  endpoints: dynamoEndpointRepository,
  events: dynamoEventRepository,
  deliveries: dynamoDeliveryRepository,
  queue: deliveryQueue(),
  clock: systemClock,
  retryDelaysSeconds: webhookRetryDelaysSeconds(),
});

/** Publishes an outbound event: what the rest of the platform calls (docs/webhooks.md). */
export type EventPublisher = (input: PublishEventInput) => Promise<PublishedEvent>;

export const publishEvent: EventPublisher = (input) => publish(fanOutDependencies(), input);

export type { PublishEventInput, PublishedEvent };
