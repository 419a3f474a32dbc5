import type { EventType } from '../event-types.js';

/**
 * The outbound webhook model. A delivery moves through an explicit state machine:
 *
 *   pending ──claim──▶ attempting ──2xx──▶ delivered
 *      ▲                    │
 *      └── retry scheduled ◀┤ failure, attempts left
 *                           └─ failure, none left ──▶ failed (+ email notice)
 *
 * `attempting` carries a lease: a worker that dies mid-attempt leaves the claim behind, and only
 * after the lease expires may another worker take it over — as the same attempt number, so a
 * crash never counts an attempt twice.
 */

/** The event type of `POST /v1/webhooks/{id}/test`; delivered to that endpoint only. */
export const testEventType = 'webhook.test';

export type DeliverableEventType = EventType | typeof testEventType;

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: EventType[];
  /** `whsec_` + base64 of 32 random bytes; it must stay readable to sign (an HMAC key). */
  secret: string;
  /** The secret before the last rotation, which still signs until `previousSecretExpiresAt`. */
  previousSecret?: string;
  /** Epoch milliseconds. */
  previousSecretExpiresAt?: number;
  createdAt: string;
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

export type DeliveryStatus = 'pending' | 'attempting' | 'delivered' | 'failed';

export interface AttemptRecord {
  attempt: number;
  /** ISO 8601 UTC. */
  attemptedAt: string;
  outcome: 'succeeded' | 'failed';
  /** HTTP status, when a response arrived. */
  responseStatus?: number;
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
  /** The last attempt number this delivery may make; manual retries raise it by one. */
  lastAllowedAttempt: number;
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

/** What one delivery attempt is, on the queue and in a schedule's payload. */
export interface AttemptMessage {
  deliveryId: string;
  attempt: number;
}
