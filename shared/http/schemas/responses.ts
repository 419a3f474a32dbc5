import * as v from 'valibot';
import { eventTypes } from '../../domain/event-types.js';
import { keptAttemptRecords, testEventType } from '../../domain/webhooks/model.js';
import { genders } from './fields.js';
import { deliveryStatuses } from './webhooks.js';

/**
 * The `data` of every success answer, as the OpenAPI document describes it and the contract test
 * checks every answer of the end-to-end suite against. Objects are strict: a field the service
 * sends and the document does not name fails the contract test, so the two cannot drift.
 *
 * Only the route table imports this module (for the document); handlers never do, so no schema
 * here reaches a function's bundle.
 */

// Every string and number with its bound (what the service stores or sends at most), as the
// OWASP API rules ask: a client can size its storage from the document.
const text = (maxLength: number) => v.pipe(v.string(), v.maxLength(maxLength));
const count = (maxValue: number) =>
  v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(maxValue));
const timestamp = v.pipe(v.string(), v.isoTimestamp(), v.maxLength(30));
const list = <T extends v.GenericSchema>(item: T, maxLength: number) =>
  v.pipe(v.array(item), v.maxLength(maxLength));
const nullable = <T extends v.GenericSchema>(schema: T) => v.nullable(schema);

const id = text(64);
const sentence = text(500);
const email = text(254);
const phone = text(32);
const seconds = count(86_400);
const message = v.strictObject({ message: sentence });

// Accounts and sessions

export const User = v.strictObject({
  id,
  name: text(100),
  /** The sign-in email: verified, or the one a pending signup awaits its code for. */
  email,
  /** The verified phone (SMS sign-in), or null. */
  phone: nullable(phone),
  /** A new email waiting for its code; the old one stays the sign-in email until then. */
  pending_email: nullable(email),
  /** A new phone waiting for its code; it grants nothing until then. */
  pending_phone: nullable(phone),
  gender: nullable(v.picklist(genders)),
  online_status: v.boolean(),
  email_verified: v.boolean(),
  phone_verified: v.boolean(),
  created_at: timestamp,
});

export const TokenPair = v.strictObject({
  access_token: text(4096),
  token_type: v.literal('Bearer'),
  expires_in: seconds,
  refresh_token: text(512),
  user: User,
});

export const Activation = v.strictObject({
  ...TokenPair.entries,
  /**
   * True when other signups met this one on the pending email: no password was kept, and the
   * signed-in owner sets one (changePassword without current_password).
   */
  password_reset_required: v.boolean(),
});

export const Session = v.strictObject({
  id,
  created_at: timestamp,
  /** The last refresh of the session's tokens. */
  last_used_at: timestamp,
  user_agent: nullable(text(256)),
  ip_address: nullable(text(45)),
  /** The session of the access token that asked. */
  current: v.boolean(),
});

export const SessionRevoked = v.strictObject({ id, revoked: v.literal(true) });

/** The public keys that verify access tokens (RFC 7517), as the JWKS document lists them. */
export const Jwks = v.strictObject({
  keys: list(
    v.strictObject({
      kty: v.literal('OKP'),
      crv: v.literal('Ed25519'),
      x: text(64),
      kid: text(64),
      alg: v.literal('EdDSA'),
      use: v.literal('sig'),
    }),
    10,
  ),
});

export const SignupAccepted = v.strictObject({
  email,
  verification_required: v.literal(true),
  message: sentence,
});

export const Message = message;

export const ForgotPasswordAccepted = v.strictObject({
  verification_required: v.boolean(),
  message: sentence,
});

export const ProfileUpdated = v.strictObject({
  user: User,
  /** The fields whose new value waits for a code: `email`, `phone_number`. */
  verification_required: list(v.picklist(['email', 'phone_number']), 2),
});

// OTP

export const CodeSent = v.strictObject({ message: sentence, expires_in: seconds });

export const SmsCodeSent = v.strictObject({
  phone_number: phone,
  purpose: v.picklist(['login', 'generic']),
  message: sentence,
  expires_in: seconds,
});

export const OtpVerified = v.union([
  TokenPair,
  v.strictObject({ verified: v.literal(true), phone_number: phone, purpose: v.literal('generic') }),
]);

export const EmailVerified = v.strictObject({ verified: v.literal(true), email });

export const MobileVerified = v.strictObject({ verified: v.literal(true), mobile_number: phone });

export const PhoneRegistration = v.strictObject({ phone, registered: v.boolean() });

// Webhooks

const eventType = v.picklist(eventTypes);

/** What a delivery or a stored event can carry: a subscribable type, or the test event. */
const deliveredType = v.picklist([...eventTypes, testEventType]);

/** `whsec_` and 32 random bytes in base64. */
const secret = text(64);

const endpointFields = {
  id,
  url: text(2048),
  events: list(eventType, eventTypes.length),
  description: nullable(sentence),
  status: v.picklist(['enabled', 'disabled']),
  disabled_reason: nullable(v.picklist(['manual', 'failing'])),
  disabled_at: nullable(timestamp),
  failing_since: nullable(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
};

export const Endpoint = v.strictObject(endpointFields);

/** Registration's answer: the signing secret, shown this once. */
export const EndpointWithSecret = v.strictObject({ ...endpointFields, secret });

/** Rotation's answer: the new secret once, and when the previous one stops signing. */
export const RotatedEndpoint = v.strictObject({
  ...endpointFields,
  secret,
  previous_secret_expires_at: timestamp,
});

export const EndpointDeleted = v.strictObject({ id, deleted: v.literal(true) });

const Attempt = v.strictObject({
  attempt: count(1000),
  attempted_at: timestamp,
  outcome: text(32),
  response_status: nullable(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599))),
  // Attempts time out after 10 s; a minute bounds the time spent connecting as well.
  latency_ms: count(60_000),
  /** The first KiB of the receiver's answer. */
  response_body: nullable(text(1024)),
  error: nullable(sentence),
});

const deliveryFields = {
  id,
  event_id: id,
  event_type: deliveredType,
  endpoint_id: id,
  status: v.picklist(deliveryStatuses),
  paused: v.boolean(),
  attempts_made: count(1000),
  next_attempt_at: nullable(timestamp),
  created_at: timestamp,
  attempts: list(Attempt, keptAttemptRecords),
};

export const Delivery = v.strictObject(deliveryFields);

const eventFields = {
  id,
  type: deliveredType,
  created_at: timestamp,
  data: v.record(text(64), v.unknown()),
};

export const Event = v.strictObject(eventFields);

export const DeliveryWithEvent = v.strictObject({ ...deliveryFields, event: nullable(Event) });

export const EventPublished = v.strictObject({
  ...eventFields,
  delivery_count: count(1000),
});

export const TestEventSent = v.strictObject({ event: Event, delivery_id: id });

export const Recovery = v.strictObject({ recovered: count(100), has_more: v.boolean() });

export const EventType = v.strictObject({
  type: eventType,
  description: sentence,
  schema: v.record(text(64), v.unknown()),
  /** An event of this type as a receiver gets it. */
  example: Event,
});

// Receivers

export const InboundReceived = v.strictObject({
  received: v.literal(true),
  event_id: text(255),
  duplicate: v.boolean(),
  route: v.picklist(['subscription', 'general']),
});
