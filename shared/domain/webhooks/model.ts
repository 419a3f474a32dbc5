import type { EventType } from '../event-types.js';

/**
 * The outbound webhook model. A delivery moves through an explicit state machine:
 *
 *   pending ──claim──▶ attempting ──2xx──▶ delivered
 *      ▲                    │
 *      ├── retry scheduled ◀┤ failure, attempts left
 *      │                    ├─ failure, none left ──▶ failed (+ daily digest) ──recover──▶ pending
 *      │                    ├─ endpoint busy or rate spent ──▶ pending, later (deferred, unmade)
 *      │                    └─ endpoint disabled ──▶ paused ──endpoint enabled──▶ pending
 *
 * `attempting` carries a lease: a worker that dies mid-attempt leaves the claim behind, and only
 * after the lease expires may another worker take it over — as the same attempt number, so a
 * crash never counts an attempt twice. `paused` keeps the attempt it was claimed for: the
 * endpoint's owner disabled it (or it was disabled for failing), and the attempt waits, unmade,
 * until the endpoint is enabled again.
 */

/** The event type of `POST /v1/webhooks/{id}/test`; delivered to that endpoint only. */
export const testEventType = 'webhook.test';

export type DeliverableEventType = EventType | typeof testEventType;

export const endpointStatuses = ['enabled', 'disabled'] as const;

export type EndpointStatus = (typeof endpointStatuses)[number];

/** Why an endpoint is disabled: by its owner, or automatically after days of only failures. */
export type DisabledReason = 'manual' | 'failing';

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  /** The canonical form (the URL parser's href): what is shown and what attempts post to. */
  url: string;
  events: EventType[];
  /** The owner's note about the endpoint ('' when none). */
  description: string;
  /** A disabled endpoint gets no new deliveries, and attempts that come due for it wait. */
  status: EndpointStatus;
  disabledReason?: DisabledReason;
  /** Epoch milliseconds. */
  disabledAt?: number;
  /**
   * Epoch milliseconds of the first failed attempt since the last successful one; a success
   * clears it. Failures that last `WEBHOOK_DISABLE_AFTER_DAYS` disable the endpoint.
   */
  failingSince?: number;
  /** `whsec_` + base64 of 32 random bytes; it must stay readable to sign (an HMAC key). */
  secret: string;
  /** The secret before the last rotation, which still signs until `previousSecretExpiresAt`. */
  previousSecret?: string;
  /** Epoch milliseconds. */
  previousSecretExpiresAt?: number;
  /**
   * Deliveries a second the owner allows this endpoint (`rate_limit`); absent: no limit beyond
   * the attempts in flight.
   */
  rateLimit?: number;
  createdAt: string;
  /** ISO 8601 UTC of the last PATCH, or of the creation. */
  updatedAt: string;
}

export interface StoredEvent {
  id: string;
  accountId: string;
  type: DeliverableEventType;
  createdAt: string;
  data: Record<string, unknown>;
  /** The exact bytes every attempt posts and signs (UTF-8 JSON of id, type, created_at, data). */
  payload: string;
}

export type DeliveryStatus = 'pending' | 'attempting' | 'paused' | 'delivered' | 'failed';

export interface AttemptRecord {
  attempt: number;
  /** ISO 8601 UTC. */
  attemptedAt: string;
  outcome: 'succeeded' | 'failed';
  /**
   * The headers this attempt was posted with (content type, user agent, `webhook-id`, its own
   * `webhook-timestamp` and signatures). Signatures are HMACs, never a secret. Absent on records
   * kept before attempts stored them.
   */
  requestHeaders?: Record<string, string>;
  /** HTTP status, when a response arrived. */
  responseStatus?: number;
  /** The response's headers, names in lower case, the first 1 KiB of them. */
  responseHeaders?: Record<string, string>;
  latencyMs: number;
  /** The first 1 KiB of the response body. */
  responseBody?: string;
  /** Why the attempt failed without a 2xx (timeout, refused address, redirect, network). */
  error?: string;
}

export interface Delivery {
  id: string;
  eventId: string;
  eventType: DeliverableEventType;
  endpointId: string;
  accountId: string;
  status: DeliveryStatus;
  /** The attempt number the next claim is for (1-based). */
  nextAttempt: number;
  /** Epoch milliseconds at which the next attempt is due. */
  nextAttemptAt: number;
  /** The last attempt number this delivery may make; manual retries and recovery raise it. */
  lastAllowedAttempt: number;
  /**
   * The first attempt of the current ladder: 1, or the attempt a manual retry or a recovery
   * started with. The ladder's delays count from it, and only the first ladder's last failure
   * is counted in the owner's daily digest.
   */
  ladderStart: number;
  /**
   * Times the current attempt was put back unmade because its endpoint was busy or its rate
   * spent (0 again once an attempt is made): each deferral waits longer.
   */
  deferrals: number;
  /**
   * The latest attempts, oldest first (at most `keptAttemptRecords` of them), as a read of the
   * delivery or a list shows them; a claim does not read them (the worker needs none).
   */
  attempts: AttemptRecord[];
  /** Set while `attempting`. */
  claim?: {
    token: string;
    attempt: number;
    expiresAt: number;
    /** How many times this attempt has been claimed (more than 1: taken over after a crash). */
    count: number;
  };
  createdAt: string;
}

/**
 * Attempt records a delivery shows, the latest. Each attempt is an item of its own beside the
 * delivery (kept as long as it), so the delivery item stays the same size however often it is
 * tried; a read of the delivery or a list reads only these latest.
 */
export const keptAttemptRecords = 20;

/** What one delivery attempt is, on the delivery queue. */
export interface AttemptMessage {
  deliveryId: string;
  attempt: number;
}

/**
 * The retry ladder's wake-up for one due minute, which its one-time schedule puts on the delivery
 * queue: the attempts due within that minute are then queued (`sweepDueMinute`).
 */
export interface LadderWake {
  /** Epoch ms of the minute's start. */
  dueMinute: number;
}
