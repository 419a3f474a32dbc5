import { randomUUID } from 'node:crypto';
import { systemClock } from '../domain/clock.js';
import type {
  ProcessDependencies,
  ReceiveDependencies,
  SweepDependencies,
} from '../domain/inbound/ports.js';
import { UnprovenSample, unprovenSamplesPerMinute } from '../domain/inbound/unproven-sample.js';
import { dynamoInboundAttemptLog } from './dynamo-inbound-attempts.js';
import { dynamoInboundEventStore } from './dynamo-inbound-events.js';
import { dynamoMessagingRecords } from './dynamo-messaging-records.js';
import { dynamoSubscriptionStore } from './dynamo-subscriptions.js';
import { publishEvent } from './event-publisher.js';
import { lazily } from './lazily.js';
import { inboundQueue } from './sqs-inbound-queue.js';

/**
 * The inbound area's wiring, as the other areas': each getter builds its object on first call
 * and returns the same one after; the queue is a getter of that object, read when a use-case
 * reaches it, so a stand-in installed later (the local runtime's, a test's) is the one used. One
 * getter per function kind, so that a receiver's bundle carries no outbound publishing.
 */

/** What the receivers need: DynamoDB for dedupe and audit, the inbound queue for hand-off. */
export const receiveDependencies = /* @__PURE__ */ lazily(
  (): ReceiveDependencies => ({
    events: dynamoInboundEventStore,
    attempts: dynamoInboundAttemptLog,
    get queue() {
      return inboundQueue();
    },
    clock: systemClock,
    newId: randomUUID,
    unprovenSample: new UnprovenSample(unprovenSamplesPerMinute),
  }),
);

/** What the processing worker needs; payment events go out through outbound publishing. */
export const processDependencies = /* @__PURE__ */ lazily(
  (): ProcessDependencies => ({
    events: dynamoInboundEventStore,
    subscriptions: dynamoSubscriptionStore,
    messaging: dynamoMessagingRecords,
    publish: publishEvent,
    clock: systemClock,
  }),
);

/** What the inbound sweeper needs: the dedupe records (gsi2) and the inbound queue. */
export const sweepDependencies = /* @__PURE__ */ lazily(
  (): SweepDependencies => ({
    events: dynamoInboundEventStore,
    get queue() {
      return inboundQueue();
    },
    clock: systemClock,
  }),
);
