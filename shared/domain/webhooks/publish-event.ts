import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { EventType } from '../event-types.js';
import { enabledEndpoint } from './deliveries.js';
import { eventCatalogue, eventDataProblems } from './event-catalogue.js';
import { deliveryIdFor, newEventId } from './ids.js';
import {
  type DeliverableEventType,
  type Delivery,
  type StoredEvent,
  testEventType,
  type WebhookEndpoint,
} from './model.js';
import type { WebhookDependencies } from './ports.js';
import { maxQueueDelaySeconds, queueDueAttempts } from './schedule-attempt.js';

/** How long an Idempotency-Key of `POST /v1/events` is remembered (Stripe's figure). */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

export type PublishDependencies = Pick<
  WebhookDependencies,
  'endpoints' | 'events' | 'deliveries' | 'queue' | 'clock'
>;

export interface PublishEventInput {
  type: EventType;
  accountId: string;
  data: Record<string, unknown>;
  /** The same key within 24 hours returns the first event and creates nothing new. */
  idempotencyKey?: string;
}

export interface PublishedEvent {
  event: StoredEvent;
  /** Deliveries of this event (one per subscribed endpoint at publication). */
  deliveryCount: number;
}

/** A new event of `type` for `accountId`, created at `now`, its payload serialised once. */
export function newEvent(
  accountId: string,
  type: DeliverableEventType,
  data: Record<string, unknown>,
  now: number,
): StoredEvent {
  const id = newEventId();
  const createdAt = new Date(now).toISOString();
  // The payload is serialised once, here; every attempt posts and signs exactly these bytes.
  const payload = JSON.stringify({ id, type, created_at: createdAt, data });
  return { id, accountId, type, createdAt, data, payload };
}

/** The delivery of `event` to `endpoint`, pending its first attempt at `dueAt`. */
export function deliveryOf(
  event: StoredEvent,
  endpoint: Pick<WebhookEndpoint, 'id'>,
  attempts: number,
  dueAt: number,
): Delivery {
  return {
    id: deliveryIdFor(event.id, endpoint.id),
    eventId: event.id,
    eventType: event.type,
    endpointId: endpoint.id,
    accountId: event.accountId,
    status: 'pending',
    nextAttempt: 1,
    nextAttemptAt: dueAt,
    lastAllowedAttempt: attempts,
    deferrals: 0,
    ladderStart: 1,
    attempts: [],
    createdAt: event.createdAt,
  };
}

/**
 * Creates the deliveries of an event to `endpoints` and queues their first attempts. The
 * deliveries are durable before anything is queued, and the event's "fan-out pending" mark is
 * cleared only after: a crash or a lost message leaves work the sweeper finds, never an event
 * without its deliveries.
 */
export async function fanOut(
  deps: PublishDependencies & Pick<WebhookDependencies, 'retryDelaysSeconds'>,
  event: StoredEvent,
  endpoints: WebhookEndpoint[],
  options: { mayExist: boolean },
): Promise<number> {
  // The ladder's first entry is the wait before attempt 1 (0 by default: at once). Beyond what
  // the queue can delay, the sweeper sends it when due.
  const firstDelaySeconds = Math.min(maxQueueDelaySeconds, deps.retryDelaysSeconds[0] ?? 0);
  const dueAt = deps.clock.now() + (deps.retryDelaysSeconds[0] ?? 0) * 1000;
  const deliveries = endpoints.map((endpoint) =>
    deliveryOf(event, endpoint, deps.retryDelaysSeconds.length, dueAt),
  );
  const created = await deps.deliveries.createMany(deliveries, options);
  await deps.events.markFannedOut(event.id);
  await queueDueAttempts(
    deps,
    created.map((delivery) => ({
      deliveryId: delivery.id,
      attempt: 1,
      delaySeconds: firstDelaySeconds,
    })),
    { eventId: event.id },
  );
  return deliveries.length;
}

/** The endpoints an event of `type` goes to: enabled, and subscribed to it. */
export const subscribersOf = (endpoints: WebhookEndpoint[], type: DeliverableEventType) =>
  endpoints.filter(
    (endpoint) => endpoint.status === 'enabled' && (endpoint.events as string[]).includes(type),
  );

function fingerprintOf(input: PublishEventInput): string {
  return createHash('sha256')
    .update(JSON.stringify([input.type, input.accountId, input.data]))
    .digest('hex');
}

/**
 * Publishes an event: checks its data against its type's schema, stores it with its exact payload, then fans it out to every endpoint of
 * the account subscribed to its type. With an Idempotency-Key, a repeat within 24 hours returns
 * the first event (and finishes its fan-out if that had been interrupted); the same key with a
 * different request is a 409.
 */
export async function publishEvent(
  deps: PublishDependencies & Pick<WebhookDependencies, 'retryDelaysSeconds'>,
  input: PublishEventInput,
): Promise<PublishedEvent> {
  // Checked before anything is stored: receivers can rely on every declared field's type.
  const problems = eventDataProblems(input.type, input.data);
  if (problems.length > 0) {
    const sentences = problems.map((problem) => `${problem.field} ${problem.message}`);
    throw new ServiceError(
      'invalid_request',
      `The event data does not fit ${input.type} (GET /v1/event-types): ${sentences.join('; ')}`,
      problems,
    );
  }
  const now = deps.clock.now();
  const event = newEvent(input.accountId, input.type, input.data, now);
  const fingerprint = fingerprintOf(input);
  const result = await deps.events.create(
    event,
    input.idempotencyKey === undefined
      ? undefined
      : { key: input.idempotencyKey, fingerprint, expiresAt: now + idempotencyWindowMs },
  );
  if (!result.created) {
    if (result.fingerprint !== fingerprint) {
      throw new ServiceError(
        'conflict',
        'This Idempotency-Key was used with a different request in the last 24 hours',
        [{ field: 'idempotency-key', message: 'was used with a different request' }],
      );
    }
    const endpoints = subscribersOf(
      await deps.endpoints.listForAccount(result.existing.accountId),
      result.existing.type,
    );
    const deliveryCount = await fanOut(deps, result.existing, endpoints, { mayExist: true });
    return { event: result.existing, deliveryCount };
  }
  const endpoints = subscribersOf(await deps.endpoints.listForAccount(input.accountId), input.type);
  const deliveryCount = await fanOut(deps, event, endpoints, { mayExist: false });
  return { event, deliveryCount };
}

/**
 * Sends a `webhook.test` event to one endpoint only, through the normal delivery path; or, given
 * `exampleOf`, the catalogue's example of a type the endpoint subscribes to (a fresh event id,
 * the example's `data`), so a receiver's handling of that type can be tried without a real event.
 */
export async function sendTestEvent(
  deps: PublishDependencies & Pick<WebhookDependencies, 'retryDelaysSeconds'>,
  accountId: string,
  endpointId: string,
  exampleOf?: EventType,
): Promise<{ event: StoredEvent; deliveryId: string }> {
  const endpoint = await enabledEndpoint(deps, accountId, endpointId, 'sending it a test event');
  if (exampleOf !== undefined && !endpoint.events.includes(exampleOf)) {
    throw new ServiceError('invalid_request', 'The endpoint does not subscribe to this type', [
      {
        field: 'event_type',
        message: `must be a type the endpoint subscribes to (${endpoint.events.join(', ')})`,
      },
    ]);
  }
  const event =
    exampleOf === undefined
      ? newEvent(
          accountId,
          testEventType,
          { webhook_id: endpoint.id, message: 'This is a test event from the webhook service.' },
          deps.clock.now(),
        )
      : newEvent(accountId, exampleOf, eventCatalogue[exampleOf].example, deps.clock.now());
  await deps.events.create(event);
  await fanOut(deps, event, [endpoint], { mayExist: false });
  return { event, deliveryId: deliveryIdFor(event.id, endpoint.id) };
}
