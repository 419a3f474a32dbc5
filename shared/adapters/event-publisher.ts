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

export type DeliveryDependencies = Pick<
  WebhookDependencies,
  'endpoints' | 'events' | 'deliveries' | 'queue' | 'clock' | 'retryDelaysSeconds'
>;

/**
 * What puts deliveries on their way — the repositories, the delivery queue (SQS, or the local
 * stand-in), the clock and the ladder: publication, test events, retries, recovery, enabling an
 * endpoint and the sweeper all use it. No HTTPS client, mailer or scheduler: only the worker
 * attempts.
 */
export const deliveryDependencies = (): DeliveryDependencies => ({
  endpoints: dynamoEndpointRepository,
  events: dynamoEventRepository,
  deliveries: dynamoDeliveryRepository,
  queue: deliveryQueue(),
  clock: systemClock,
  retryDelaysSeconds: webhookRetryDelaysSeconds(),
});

/** Publishes an outbound event: what the rest of the platform calls (docs/webhooks.md). */
export type EventPublisher = (input: PublishEventInput) => Promise<PublishedEvent>;

export const publishEvent: EventPublisher = (input) => publish(deliveryDependencies(), input);

export type { PublishEventInput, PublishedEvent };
