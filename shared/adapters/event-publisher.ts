import {
  type PublishEventInput,
  type PublishedEvent,
  publishEvent as publish,
} from '../domain/webhooks/publish-event.js';
import { deliveryDependencies } from './webhook-deliveries-wiring.js';

/** Publishes an outbound event: what the rest of the platform calls (docs/webhooks.md). */
export type EventPublisher = (input: PublishEventInput) => Promise<PublishedEvent>;

export const publishEvent: EventPublisher = (input) => publish(deliveryDependencies(), input);

export type { PublishEventInput, PublishedEvent };
