import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { JsonObject } from './json.js';
import { messagingContentOf } from './messaging-events.js';
import type { InboundCall, InboundRoute, InboundSource } from './model.js';
import {
  type SignatureCheck,
  verifyGatewayBSignature,
  verifyHexHmac,
  verifyMessagingSignature,
} from './signatures.js';

/** The first of several header names that is present (senders use their own brand names). */
const header = (call: InboundCall, ...names: string[]): string | undefined =>
  names.map((name) => call.headers[name]).find((value) => value !== undefined);

const bodyHash = (rawBody: Buffer): string =>
  `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;

/** What a verified body says about itself: the dedupe key, the type and where it goes. */
export interface EventIdentity {
  eventId: string;
  type: string;
  route: InboundRoute;
  /**
   * The id a header of the call claims for the event, when the signature does not cover it
   * (gateway A): kept on the call's audit record, never used to tell what is new.
   */
  senderEventId?: string;
}

/** The longest claimed event id kept for audit (the header is the sender's free text). */
const maxSenderEventIdLength = 200;

/** When the sender created an event, as its signed body says, and the field that says it. */
export interface CreationTime {
  /** Unix seconds. */
  seconds: number;
  field: string;
}

/** How one sender signs and names its events (docs/receivers.md). */
export interface SourceRules {
  source: InboundSource;
  verify(call: InboundCall, secrets: string[]): SignatureCheck;
  /** Throws invalid_request when the body lacks what every event of this sender carries. */
  identify(call: InboundCall, body: JsonObject): EventIdentity;
  /**
   * When the event was created, from the signed body: gateway A's `created_at` (required: a body
   * without it is malformed), gateway B's `created` when sent, a messaging notification's newest
   * message or status (none when it carries neither: then nothing in it is stored but its dedupe
   * record).
   */
  createdAt(body: JsonObject): CreationTime | undefined;
}

const malformed = (field: string, message: string) =>
  new ServiceError('invalid_request', `The event body is not a valid event: ${field} ${message}`, [
    { field, message },
  ]);

function requiredString(body: JsonObject, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '')
    throw malformed(field, 'must be a non-empty string');
  return value;
}

/** A gateway's own creation time of the event: Unix seconds in `field`. */
function creationSeconds(body: JsonObject, field: string): CreationTime {
  const value = body[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw malformed(field, "must be the event's creation time in Unix seconds");
  }
  return { seconds: value, field };
}

/** Gateway B: subscription lifecycle and checkout completion go to subscription handling. */
export function gatewayBRoute(type: string): InboundRoute {
  return type.startsWith('customer.subscription.') ||
    type.startsWith('invoice.') ||
    type === 'checkout.session.completed'
    ? 'subscription'
    : 'general';
}

/** Gateway A names subscription events `subscription.*`. */
export const gatewayARoute = (type: string): InboundRoute =>
  type.startsWith('subscription.') ? 'subscription' : 'general';

export const gatewayA: SourceRules = {
  source: 'gateway-a',
  verify: (call, secrets) =>
    verifyHexHmac(
      call.rawBody,
      header(call, 'x-gateway-a-signature', 'x-razorpay-signature'),
      secrets,
    ),
  identify(call, body) {
    const type = requiredString(body, 'event');
    // The dedupe key is the signed body itself. The event-id header is outside the signature:
    // keyed on it, one signed body posted under four ids was four events (four
    // payment.successful for one payment). It is kept for audit only.
    const claimed = header(call, 'x-gateway-a-event-id', 'x-razorpay-event-id')?.trim();
    return {
      eventId: bodyHash(call.rawBody),
      type,
      route: gatewayARoute(type),
      ...(claimed ? { senderEventId: claimed.slice(0, maxSenderEventIdLength) } : {}),
    };
  },
  // Required: nothing else dates a gateway A body, whose signature covers no time.
  createdAt: (body) => creationSeconds(body, 'created_at'),
};

export const gatewayB: SourceRules = {
  source: 'gateway-b',
  verify: (call, secrets) =>
    verifyGatewayBSignature(
      call.rawBody,
      header(call, 'gateway-b-signature', 'stripe-signature'),
      secrets,
      call.receivedAt,
    ),
  identify(_call, body) {
    const eventId = requiredString(body, 'id');
    const type = requiredString(body, 'type');
    return { eventId, type, route: gatewayBRoute(type) };
  },
  // The signature's own timestamp (±300 s) already stops the replay of a captured call; the
  // event's `created`, when sent, also stops the gateway's own resend of an event the dedupe
  // record may have forgotten.
  createdAt: (body) => (body.created === undefined ? undefined : creationSeconds(body, 'created')),
};

export const messaging: SourceRules = {
  source: 'messaging',
  verify: (call, secrets) =>
    verifyMessagingSignature(call.rawBody, header(call, 'x-hub-signature-256'), secrets),
  identify(call, body) {
    // The platform sends no event id; its retries repeat the same bytes, so the body's hash is
    // the dedupe key. Messages and statuses inside are also stored by their own ids.
    const type =
      typeof body.object === 'string' && body.object !== '' ? body.object : 'notification';
    return { eventId: bodyHash(call.rawBody), type, route: 'general' };
  },
  createdAt(body) {
    const { messages, statuses } = messagingContentOf(body);
    const newest = Math.max(
      0,
      ...messages.map((message) => message.sentAt),
      ...statuses.map((status) => status.at),
    );
    return newest > 0 ? { seconds: newest, field: 'timestamp' } : undefined;
  },
};

export const sourceRules: Record<InboundSource, SourceRules> = {
  'gateway-a': gatewayA,
  'gateway-b': gatewayB,
  messaging,
};
