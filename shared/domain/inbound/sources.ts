import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { InboundCall, InboundRoute, InboundSource } from './model.js';
import {
  type SignatureCheck,
  verifyGatewayBSignature,
  verifyHexHmac,
  verifyMessagingSignature,
} from './signatures.js';

/** A JSON object as parsed from a body: fields are read defensively. */
export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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

/** How one sender signs and names its events (contract.md, "Inbound webhooks"). */
export interface SourceRules {
  source: InboundSource;
  verify(call: InboundCall, secrets: string[]): SignatureCheck;
  /** Throws invalid_request when the body lacks what every event of this sender carries. */
  identify(call: InboundCall, body: JsonObject): EventIdentity;
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
};

export const sourceRules: Record<InboundSource, SourceRules> = {
  'gateway-a': gatewayA,
  'gateway-b': gatewayB,
  messaging,
};
