import type { Delivery, StoredEvent, WebhookEndpoint } from './model.js';

/** The public (snake_case) shapes of the webhook resources. */

export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  status: 'enabled';
  created_at: string;
  /** Only in the answers of registration and rotation. */
  secret?: string;
}

export const endpointView = (endpoint: WebhookEndpoint, withSecret = false): EndpointView => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  status: 'enabled',
  created_at: endpoint.createdAt,
  ...(withSecret ? { secret: endpoint.secret } : {}),
});

/** A claim in progress is an internal step: clients see such a delivery as pending. */
export const deliveryView = (delivery: Delivery) => ({
  id: delivery.id,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  endpoint_id: delivery.endpointId,
  status: delivery.status === 'attempting' ? 'pending' : delivery.status,
  attempts_made: delivery.attempts.length,
  next_attempt_at:
    delivery.status === 'pending' ? new Date(delivery.nextAttemptAt).toISOString() : null,
  created_at: delivery.createdAt,
  attempts: delivery.attempts.map((attempt) => ({
    attempt: attempt.attempt,
    attempted_at: attempt.attemptedAt,
    outcome: attempt.outcome,
    response_status: attempt.responseStatus ?? null,
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
