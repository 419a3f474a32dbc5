import type { Delivery, StoredEvent, WebhookEndpoint } from '../../domain/webhooks/model.js';

/** The public (snake_case) shapes of the webhook resources. */

const isoOrNull = (epochMs: number | undefined) =>
  epochMs === undefined ? null : new Date(epochMs).toISOString();

export const endpointView = (endpoint: WebhookEndpoint, withSecret = false) => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
  status: endpoint.status,
  /** `manual` (its owner) or `failing` (automatically); null while enabled. */
  disabled_reason: endpoint.status === 'disabled' ? (endpoint.disabledReason ?? 'manual') : null,
  disabled_at: endpoint.status === 'disabled' ? isoOrNull(endpoint.disabledAt) : null,
  /** Since when every attempt has failed (null after a success): what auto-disabling counts. */
  failing_since: isoOrNull(endpoint.failingSince),
  /** Deliveries a second at most; null: no limit beyond the attempts in flight. */
  rate_limit: endpoint.rateLimit ?? null,
  created_at: endpoint.createdAt,
  updated_at: endpoint.updatedAt,
  /** Only in the answers of registration and rotation. */
  ...(withSecret ? { secret: endpoint.secret } : {}),
});

/**
 * A claim in progress is an internal step, and a delivery waiting for its endpoint to be enabled
 * has its attempt still to come: clients see both as pending (the latter `paused`, with no time
 * set for its next attempt).
 */
export const deliveryView = (delivery: Delivery) => ({
  id: delivery.id,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  endpoint_id: delivery.endpointId,
  status:
    delivery.status === 'attempting' || delivery.status === 'paused' ? 'pending' : delivery.status,
  paused: delivery.status === 'paused',
  // The counter, not the records: a delivery keeps only its latest attempt records.
  attempts_made: delivery.nextAttempt - 1,
  next_attempt_at:
    delivery.status === 'pending' ? new Date(delivery.nextAttemptAt).toISOString() : null,
  created_at: delivery.createdAt,
  attempts: delivery.attempts.map((attempt) => ({
    attempt: attempt.attempt,
    attempted_at: attempt.attemptedAt,
    outcome: attempt.outcome,
    request_headers: attempt.requestHeaders ?? null,
    response_status: attempt.responseStatus ?? null,
    response_headers: attempt.responseHeaders ?? null,
    latency_ms: attempt.latencyMs,
    response_body: attempt.responseBody ?? null,
    error: attempt.error ?? null,
  })),
});

/** The event object as receivers get it. */
export const eventView = (event: StoredEvent) => ({
  id: event.id,
  type: event.type,
  created_at: event.createdAt,
  data: event.data,
});
