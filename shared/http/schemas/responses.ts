import * as v from 'valibot';
import { eventTypes } from '../../domain/event-types.js';
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

const text = v.string();
const count = v.pipe(v.number(), v.integer());
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const nullable = <T extends v.GenericSchema>(schema: T) => v.nullable(schema);
const message = v.strictObject({ message: text });

// Accounts and sessions

export const User = v.strictObject({
  id: text,
  name: text,
  email: text,
  phone: nullable(text),
  gender: nullable(v.picklist(genders)),
  online_status: v.boolean(),
  email_verified: v.boolean(),
  phone_verified: v.boolean(),
  created_at: timestamp,
});

export const TokenPair = v.strictObject({
  access_token: text,
  token_type: v.literal('Bearer'),
  expires_in: count,
  refresh_token: text,
  user: User,
});

export const SignupAccepted = v.strictObject({
  email: text,
  verification_required: v.literal(true),
  message: text,
});

export const Message = message;

export const ForgotPasswordAccepted = v.strictObject({
  verification_required: v.boolean(),
  message: text,
});

export const ProfileUpdated = v.strictObject({
  user: User,
  /** The fields whose new value waits for a code: `email`, `phone_number`. */
  verification_required: v.array(text),
});

// OTP

export const CodeSent = v.strictObject({ message: text, expires_in: count });

export const SmsCodeSent = v.strictObject({
  phone_number: text,
  purpose: v.picklist(['login', 'generic']),
  message: text,
  expires_in: count,
});

export const OtpVerified = v.union([
  TokenPair,
  v.strictObject({ verified: v.literal(true), phone_number: text, purpose: v.literal('generic') }),
]);

export const EmailVerified = v.strictObject({ verified: v.literal(true), email: text });

export const MobileVerified = v.strictObject({ verified: v.literal(true), mobile_number: text });

export const PhoneRegistration = v.strictObject({ phone: text, registered: v.boolean() });

// Webhooks

const eventType = v.picklist(eventTypes);

const endpointFields = {
  id: text,
  url: text,
  events: v.array(eventType),
  description: nullable(text),
  status: v.picklist(['enabled', 'disabled']),
  disabled_reason: nullable(v.picklist(['manual', 'failing'])),
  disabled_at: nullable(timestamp),
  failing_since: nullable(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
};

export const Endpoint = v.strictObject(endpointFields);

/** Registration's answer: the signing secret, shown this once. */
export const EndpointWithSecret = v.strictObject({ ...endpointFields, secret: text });

/** Rotation's answer: the new secret once, and when the previous one stops signing. */
export const RotatedEndpoint = v.strictObject({
  ...endpointFields,
  secret: text,
  previous_secret_expires_at: timestamp,
});

export const EndpointDeleted = v.strictObject({ id: text, deleted: v.literal(true) });

const Attempt = v.strictObject({
  attempt: count,
  attempted_at: timestamp,
  outcome: text,
  response_status: nullable(count),
  latency_ms: count,
  response_body: nullable(text),
  error: nullable(text),
});

const deliveryFields = {
  id: text,
  event_id: text,
  event_type: text,
  endpoint_id: text,
  status: v.picklist(deliveryStatuses),
  paused: v.boolean(),
  attempts_made: count,
  next_attempt_at: nullable(timestamp),
  created_at: timestamp,
  attempts: v.array(Attempt),
};

export const Delivery = v.strictObject(deliveryFields);

const eventFields = {
  id: text,
  type: text,
  created_at: timestamp,
  data: v.record(v.string(), v.unknown()),
};

export const Event = v.strictObject(eventFields);

export const DeliveryWithEvent = v.strictObject({ ...deliveryFields, event: nullable(Event) });

export const EventPublished = v.strictObject({ ...eventFields, delivery_count: count });

export const TestEventSent = v.strictObject({ event: Event, delivery_id: text });

export const Recovery = v.strictObject({ recovered: count, has_more: v.boolean() });

export const EventType = v.strictObject({
  type: eventType,
  description: text,
  schema: v.record(v.string(), v.unknown()),
  example: v.record(v.string(), v.unknown()),
});

// Receivers

export const InboundReceived = v.strictObject({
  received: v.literal(true),
  event_id: text,
  duplicate: v.boolean(),
  route: v.picklist(['subscription', 'general']),
});
