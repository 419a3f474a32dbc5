import { randomUUID } from 'node:crypto';
import { systemClock } from '../domain/clock.js';
import type {
  ProcessDependencies,
  ReceiveDependencies,
  SweepDependencies,
} from '../domain/inbound/ports.js';
import { dynamoInboundAttemptLog } from './dynamo-inbound-attempts.js';
import { dynamoInboundEventStore } from './dynamo-inbound-events.js';
import { dynamoMessagingRecords } from './dynamo-messaging-records.js';
import { dynamoSubscriptionStore } from './dynamo-subscriptions.js';
import { publishEvent } from './event-publisher.js';
import { inboundQueue } from './sqs-inbound-queue.js';

/** What the receivers need: DynamoDB for dedupe and audit, the inbound queue for hand-off. */
export const receiveDependencies = (): ReceiveDependencies => ({
  events: dynamoInboundEventStore,
  attempts: dynamoInboundAttemptLog,
  queue: inboundQueue(),
  clock: systemClock,
  newId: randomUUID,
});

/** What the processing worker needs; payment events go out through outbound publishing. */
export const processDependencies = (): ProcessDependencies => ({
  events: dynamoInboundEventStore,
  subscriptions: dynamoSubscriptionStore,
  messaging: dynamoMessagingRecords,
  publish: publishEvent,
  clock: systemClock,
});

/** What the inbound sweeper needs: the dedupe records (gsi2) and the inbound queue. */
export const sweepDependencies = (): SweepDependencies => ({
  events: dynamoInboundEventStore,
  queue: inboundQueue(),
  clock: systemClock,
});
