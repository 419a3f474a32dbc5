/**
 * Inbound webhooks: what the gateways and the messaging platform send us, how each call is
 * audited, and the life of an accepted event (received → processing → processed | failed).
 */

/** Who sent the event. The three gateway A endpoints share one source (one event-id space). */
export type InboundSource = 'gateway-a' | 'gateway-b' | 'messaging';

export const inboundSources: readonly InboundSource[] = ['gateway-a', 'gateway-b', 'messaging'];

/** Where an accepted event goes: subscription handling or general handling. */
export type InboundRoute = 'subscription' | 'general';

/**
 * What became of one call, as the audit trail records it:
 * - accepted: verified, new, stored and handed to processing;
 * - duplicate: verified, already seen (acknowledged, not processed again);
 * - verified: a messaging subscription handshake that passed;
 * - invalid_signature, malformed (non-JSON or missing fields), too_old (created longer ago than
 *   the dedupe window: a replay cannot be told from a new event), too_large (over the size
 *   limit, or more than storage keeps), wrong_method, forbidden (a handshake with a wrong token):
 *   refused with a 4xx;
 * - failed: verified and stored, but the hand-off to processing failed (answered 500 so the
 *   sender retries; the retry is re-queued).
 */
export type AttemptOutcome =
  | 'accepted'
  | 'duplicate'
  | 'verified'
  | 'invalid_signature'
  | 'malformed'
  | 'too_old'
  | 'too_large'
  | 'wrong_method'
  | 'forbidden'
  | 'failed';

/**
 * How long an accepted event's dedupe record is kept: gateways retry for up to 3 days (gateway B)
 * or 24 hours (gateway A), and at least 30 days were asked for; the margin covers a late manual
 * resend. An event created longer ago than this is refused: its record may be gone, so a replay
 * could not be told from a new event.
 */
export const dedupeWindowSeconds = 35 * 24 * 60 * 60;

/** One call to a receiver, kept for audit. */
export interface InboundAttempt {
  id: string;
  source: InboundSource;
  /** The operation that was called (the three gateway A endpoints share a source). */
  endpoint: string;
  /** Epoch milliseconds. */
  receivedAt: number;
  outcome: AttemptOutcome;
  statusCode: number;
  /** The dedupe key (the source's event id, or the body's SHA-256), once the body was understood. */
  eventId?: string;
  /** The id the call's header claimed when the signature does not cover it (gateway A). */
  senderEventId?: string;
  eventType?: string;
  /** The error code of a refused call. */
  errorCode?: string;
  requestId: string;
  sourceIp: string;
}

export type InboundEventStatus = 'received' | 'processing' | 'processed' | 'failed';

/** An accepted event, stored once per source and event id: the dedupe record. */
export interface InboundEvent {
  source: InboundSource;
  eventId: string;
  type: string;
  route: InboundRoute;
  /** Epoch milliseconds. */
  receivedAt: number;
  /** The exact body that was verified. */
  rawBody: Buffer;
}

/** The call as the receivers see it: exact bytes, lower-cased header names. */
export interface InboundCall {
  endpoint: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  rawBody: Buffer;
  requestId: string;
  sourceIp: string;
  /** Epoch milliseconds, from the system clock. */
  receivedAt: number;
}

/** An accepted or duplicate event, as a receiver acknowledges it (its view: `acknowledgementView`). */
export interface Acknowledgement {
  received: true;
  eventId: string;
  duplicate: boolean;
  route: InboundRoute;
}

/** The message that hands an accepted event to processing. */
export interface ProcessingRequest {
  source: InboundSource;
  eventId: string;
}
