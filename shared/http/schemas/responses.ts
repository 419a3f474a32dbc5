import * as v from 'valibot';
import { eventTypes } from '../../domain/event-types.js';
import { keptAttemptRecords, testEventType } from '../../domain/webhooks/model.js';
import { deliveryStatuses, genders } from './vocabulary.js';
import { maxRateLimit } from './webhooks.js';

/**
 * The `data` of every success answer, as the OpenAPI document describes it and the contract test
 * checks every answer of the end-to-end suite against. Objects are strict: a field the service
 * sends and the document does not name fails the contract test, so the two cannot drift.
 *
 * Each operation's definition names its answer's schemas here (its `answer` export), which only
 * the route table reads, for the document. A handler imports its definition's `operation` alone,
 * so esbuild drops these schemas from its bundle — as long as every top-level expression here is
 * pure-marked and reads no property and spreads nothing (`merged`, `withItem`, `lengthOf`
 * below); test/architecture/answers-out-of-bundles.test.ts builds every bundle to hold that.
 */

// Every string and number with its bound (what the service stores or sends at most), as the
// OWASP API rules ask: a client can size its storage from the document.
// With an example, the reference shows a realistic answer instead of "string" (examples are
// documentation only: nothing checks an answer against them).
const text = (maxLength: number, example?: string) =>
  example === undefined
    ? /* @__PURE__ */ v.pipe(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.maxLength(maxLength))
    : /* @__PURE__ */ v.pipe(
        /* @__PURE__ */ v.string(),
        /* @__PURE__ */ v.maxLength(maxLength),
        /* @__PURE__ */ v.examples([example]),
      );
const count = (maxValue: number) =>
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.number(),
    /* @__PURE__ */ v.integer(),
    /* @__PURE__ */ v.minValue(0),
    /* @__PURE__ */ v.maxValue(maxValue),
  );
const timestamp = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string(),
  /* @__PURE__ */ v.isoTimestamp(),
  /* @__PURE__ */ v.maxLength(30),
  /* @__PURE__ */ v.examples(['2026-01-15T09:30:00.000Z']),
);
const list = <T extends v.GenericSchema>(item: T, maxLength: number) =>
  /* @__PURE__ */ v.pipe(/* @__PURE__ */ v.array(item), /* @__PURE__ */ v.maxLength(maxLength));
const nullable = <T extends v.GenericSchema>(schema: T) => /* @__PURE__ */ v.nullable(schema);
// Spread and property reads at the top level keep a schema in every bundle that imports this
// module (esbuild cannot tell they read nothing with side effects); through these pure-marked
// calls it can drop whatever a bundle does not use (every definition imports this module for
// its `answer`, which no handler reads).
const merged = <A extends object, B extends object>(fields: A, more: B): A & B => ({
  ...fields,
  ...more,
});
const withItem = <T>(items: readonly T[], item: T): T[] => [...items, item];
const lengthOf = (items: readonly unknown[]): number => items.length;

const userId = /* @__PURE__ */ text(64, 'usr_3q9ZkT1xW0bH5mN2rV8cYg');
const sessionId = /* @__PURE__ */ text(64, 'ses_Jm4pX7sD2fK9wQ1tZ6bN0e');
const endpointId = /* @__PURE__ */ text(64, 'whk_q3zk2m7d4t6y1b5n8c2x');
const eventId = /* @__PURE__ */ text(64, 'evt_7k2m9q4x1z3c5v8b6n0a');
const deliveryId = /* @__PURE__ */ text(64, 'dlv_5b7n2m4q6w8e1r3t9y0u');
const sentence = /* @__PURE__ */ text(500);
const codeSentSentence = /* @__PURE__ */ text(
  500,
  'We sent a 6-digit code to this email; enter it to activate the account',
);
const email = /* @__PURE__ */ text(254, 'ada@example.com');
const phone = /* @__PURE__ */ text(32, '+14155550123');
const seconds = /* @__PURE__ */ count(86_400);
const message = /* @__PURE__ */ v.strictObject({ message: sentence });

// Accounts and sessions

export const User = /* @__PURE__ */ v.strictObject({
  id: userId,
  name: /* @__PURE__ */ text(100, 'Ada Lovelace'),
  /** The sign-in email: verified, or the one a pending signup awaits its code for. */
  email,
  /** The verified phone (SMS sign-in), or null. */
  phone: /* @__PURE__ */ nullable(phone),
  /** A new email waiting for its code; the old one stays the sign-in email until then. */
  pending_email: /* @__PURE__ */ nullable(email),
  /** A new phone waiting for its code; it grants nothing until then. */
  pending_phone: /* @__PURE__ */ nullable(phone),
  gender: /* @__PURE__ */ nullable(/* @__PURE__ */ v.picklist(genders)),
  online_status: /* @__PURE__ */ v.boolean(),
  email_verified: /* @__PURE__ */ v.boolean(),
  /** The phone signs in by SMS: false again after a password reset, until confirmed again. */
  phone_verified: /* @__PURE__ */ v.boolean(),
  /** Sign-ins ask for a second factor: a code of the authenticator app set up on the account. */
  mfa_enabled: /* @__PURE__ */ v.boolean(),
  created_at: timestamp,
});

const tokenPairFields = {
  access_token: /* @__PURE__ */ text(
    4096,
    'eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c3JfM3E5WmtUMXhXMGJINW1OMnJWOGNZZyJ9.c2lnbmF0dXJl',
  ),
  token_type: /* @__PURE__ */ v.literal('Bearer'),
  expires_in: seconds,
  refresh_token: /* @__PURE__ */ text(512, 'rt_Vx3mQ8kZ1pL6wN0sT4yB9cF2hJ7dR5gA'),
  user: User,
};

export const TokenPair = /* @__PURE__ */ v.strictObject(tokenPairFields);

/** A sign-in of an account with a second factor: the ticket `POST /v1/auth/mfa/verify` takes. */
export const MfaRequired = /* @__PURE__ */ v.strictObject({
  mfa_required: /* @__PURE__ */ v.literal(true),
  mfa_ticket: /* @__PURE__ */ text(128, 'mfa_Q2hvb3NlIGEgbG9uZyByYW5kb20gdGlja2V0IGhlcmUgcGxlYXNl'),
  expires_in: seconds,
});

/** What a sign-in answers: the tokens, or the MFA ticket. */
export const SignIn = /* @__PURE__ */ v.union([TokenPair, MfaRequired]);

/** An authenticator app's secret, waiting for its first code. */
export const TotpEnrolment = /* @__PURE__ */ v.strictObject({
  /** Base32, for typing into the app by hand. */
  secret: /* @__PURE__ */ text(64, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'),
  otpauth_uri: /* @__PURE__ */ text(
    1024,
    'otpauth://totp/Accounts:ada%40example.com?issuer=Accounts&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
  ),
  /** The URI as a QR code, an SVG document to show as is. */
  qr_svg: /* @__PURE__ */ text(65_536, '<svg xmlns="http://www.w3.org/2000/svg" …</svg>'),
  expires_in: seconds,
});

/**
 * The options of a passkey ceremony, as `@simplewebauthn/browser` takes them (the WebAuthn
 * JSON forms of `PublicKeyCredentialCreationOptions` and `…RequestOptions`).
 */
export const PasskeyOptions = /* @__PURE__ */ v.looseObject({
  challenge: /* @__PURE__ */ text(256, 'Y2hhbGxlbmdlLWZyb20tdGhlLXNlcnZpY2U'),
  timeout: /* @__PURE__ */ v.optional(/* @__PURE__ */ count(600_000)),
  rpId: /* @__PURE__ */ v.optional(/* @__PURE__ */ text(253, 'accounts.example.com')),
});

/** A passkey's credential id (base64url), as the browser and the list give it. */
const credentialId = /* @__PURE__ */ text(
  1024,
  'KEbWNCc7NgaYnUyrNeFGX9_3Y-8oJ3KwzjnaiD1d1LVTxR7v3CaKfCz2Vy_g_MHS',
);

/** A passkey of the account, as its list shows it. */
export const Passkey = /* @__PURE__ */ v.strictObject({
  id: credentialId,
  /** `multiDevice`: synced between devices (a password manager, an OS account). */
  device_type: /* @__PURE__ */ v.picklist(['singleDevice', 'multiDevice']),
  backed_up: /* @__PURE__ */ v.boolean(),
  created_at: timestamp,
  last_used_at: /* @__PURE__ */ v.nullable(timestamp),
});

export const PasskeyRemoved = /* @__PURE__ */ v.strictObject({
  id: credentialId,
  removed: /* @__PURE__ */ v.literal(true),
});

/** The recovery codes of an app just set up: shown this once. */
export const TotpEnabled = /* @__PURE__ */ v.strictObject({
  recovery_codes: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.array(/* @__PURE__ */ text(16, 'k3j7q-x2m9p')),
    /* @__PURE__ */ v.maxLength(10),
  ),
});

export const Activation = /* @__PURE__ */ v.strictObject(
  /* @__PURE__ */ merged(tokenPairFields, {
    /**
     * True when the signer may not be whoever activates — other signups met this one on the
     * pending email, or forgot-password was asked for it: no password was kept, and the
     * signed-in owner sets one (changePassword without current_password).
     */
    password_reset_required: /* @__PURE__ */ v.boolean(),
  }),
);

export const Session = /* @__PURE__ */ v.strictObject({
  id: sessionId,
  created_at: timestamp,
  /** The last refresh of the session's tokens. */
  last_used_at: timestamp,
  user_agent: /* @__PURE__ */ nullable(
    /* @__PURE__ */ text(256, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/150.0.0.0 Safari/537.36'),
  ),
  ip_address: /* @__PURE__ */ nullable(/* @__PURE__ */ text(45, '203.0.113.7')),
  /** The session of the access token that asked. */
  current: /* @__PURE__ */ v.boolean(),
});

export const SessionRevoked = /* @__PURE__ */ v.strictObject({
  id: sessionId,
  revoked: /* @__PURE__ */ v.literal(true),
});

/** The public keys that verify access tokens (RFC 7517), as the JWKS document lists them. */
export const Jwks = /* @__PURE__ */ v.strictObject({
  keys: /* @__PURE__ */ list(
    /* @__PURE__ */ v.strictObject({
      kty: /* @__PURE__ */ v.literal('OKP'),
      crv: /* @__PURE__ */ v.literal('Ed25519'),
      x: /* @__PURE__ */ text(64, '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo'),
      kid: /* @__PURE__ */ text(64, 'k1'),
      alg: /* @__PURE__ */ v.literal('EdDSA'),
      use: /* @__PURE__ */ v.literal('sig'),
    }),
    10,
  ),
});

export const SignupAccepted = /* @__PURE__ */ v.strictObject({
  email,
  verification_required: /* @__PURE__ */ v.literal(true),
  message: codeSentSentence,
});

export const Message = message;

export const ForgotPasswordAccepted = /* @__PURE__ */ v.strictObject({
  verification_required: /* @__PURE__ */ v.boolean(),
  message: sentence,
});

export const ProfileUpdated = /* @__PURE__ */ v.strictObject({
  user: User,
  /** The fields whose new value waits for a code: `email`, `phone_number`. */
  verification_required: /* @__PURE__ */ list(
    /* @__PURE__ */ v.picklist(['email', 'phone_number']),
    2,
  ),
});

// OTP

export const CodeSent = /* @__PURE__ */ v.strictObject({ message: sentence, expires_in: seconds });

export const SmsCodeSent = /* @__PURE__ */ v.strictObject({
  phone_number: phone,
  purpose: /* @__PURE__ */ v.picklist(['login', 'generic']),
  message: sentence,
  expires_in: seconds,
});

export const OtpVerified = /* @__PURE__ */ v.union([
  TokenPair,
  MfaRequired,
  /* @__PURE__ */ v.strictObject({
    verified: /* @__PURE__ */ v.literal(true),
    phone_number: phone,
    purpose: /* @__PURE__ */ v.literal('generic'),
  }),
]);

export const EmailVerified = /* @__PURE__ */ v.strictObject({
  verified: /* @__PURE__ */ v.literal(true),
  email,
});

export const MobileVerified = /* @__PURE__ */ v.strictObject({
  verified: /* @__PURE__ */ v.literal(true),
  mobile_number: phone,
});

export const PhoneRegistration = /* @__PURE__ */ v.strictObject({
  phone,
  registered: /* @__PURE__ */ v.boolean(),
});

// Webhooks

const eventType = /* @__PURE__ */ v.picklist(eventTypes);

/** What a delivery or a stored event can carry: a subscribable type, or the test event. */
const deliveredType = /* @__PURE__ */ v.picklist(
  /* @__PURE__ */ withItem(eventTypes, testEventType),
);

/** `whsec_` and 32 random bytes in base64. */
const secret = /* @__PURE__ */ text(64, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');

const endpointFields = {
  id: endpointId,
  url: /* @__PURE__ */ text(2048, 'https://api.example.com/webhooks'),
  events: /* @__PURE__ */ list(eventType, /* @__PURE__ */ lengthOf(eventTypes)),
  description: /* @__PURE__ */ nullable(
    /* @__PURE__ */ text(500, 'Order updates for the warehouse app'),
  ),
  status: /* @__PURE__ */ v.picklist(['enabled', 'disabled']),
  disabled_reason: /* @__PURE__ */ nullable(/* @__PURE__ */ v.picklist(['manual', 'failing'])),
  disabled_at: /* @__PURE__ */ nullable(timestamp),
  failing_since: /* @__PURE__ */ nullable(timestamp),
  rate_limit: /* @__PURE__ */ nullable(
    /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ v.number(),
      /* @__PURE__ */ v.integer(),
      /* @__PURE__ */ v.minValue(1),
      /* @__PURE__ */ v.maxValue(maxRateLimit),
    ),
  ),
  created_at: timestamp,
  updated_at: timestamp,
};

export const Endpoint = /* @__PURE__ */ v.strictObject(endpointFields);

/** Registration's answer: the signing secret, shown this once. */
export const EndpointWithSecret = /* @__PURE__ */ v.strictObject(
  /* @__PURE__ */ merged(endpointFields, { secret }),
);

/** Rotation's answer: the new secret once, and when the previous one stops signing. */
export const RotatedEndpoint = /* @__PURE__ */ v.strictObject(
  /* @__PURE__ */ merged(endpointFields, { secret, previous_secret_expires_at: timestamp }),
);

export const EndpointDeleted = /* @__PURE__ */ v.strictObject({
  id: endpointId,
  deleted: /* @__PURE__ */ v.literal(true),
});

/** Header names in lower case and their values; null on attempts recorded before headers were. */
const headers = (maxValue: number) =>
  /* @__PURE__ */ nullable(
    /* @__PURE__ */ v.record(/* @__PURE__ */ text(256), /* @__PURE__ */ text(maxValue)),
  );

const Attempt = /* @__PURE__ */ v.strictObject({
  attempt: /* @__PURE__ */ count(1000),
  attempted_at: timestamp,
  outcome: /* @__PURE__ */ text(32, 'succeeded'),
  /** What this attempt sent: content type, user agent, webhook-id, its timestamp and signatures. */
  request_headers: /* @__PURE__ */ headers(1024),
  response_status: /* @__PURE__ */ nullable(
    /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ v.number(),
      /* @__PURE__ */ v.integer(),
      /* @__PURE__ */ v.minValue(100),
      /* @__PURE__ */ v.maxValue(599),
    ),
  ),
  /** The receiver's response headers, the first KiB of them. */
  response_headers: /* @__PURE__ */ headers(1024),
  // Attempts time out after 10 s; a minute bounds the time spent connecting as well.
  latency_ms: /* @__PURE__ */ count(60_000),
  /** The first KiB of the receiver's answer. */
  response_body: /* @__PURE__ */ nullable(/* @__PURE__ */ text(1024, '{"received":true}')),
  error: /* @__PURE__ */ nullable(sentence),
});

const deliveryFields = {
  id: deliveryId,
  event_id: eventId,
  event_type: deliveredType,
  endpoint_id: endpointId,
  status: /* @__PURE__ */ v.picklist(deliveryStatuses),
  paused: /* @__PURE__ */ v.boolean(),
  attempts_made: /* @__PURE__ */ count(1000),
  next_attempt_at: /* @__PURE__ */ nullable(timestamp),
  created_at: timestamp,
  attempts: /* @__PURE__ */ list(Attempt, keptAttemptRecords),
};

export const Delivery = /* @__PURE__ */ v.strictObject(deliveryFields);

const eventFields = {
  id: eventId,
  type: deliveredType,
  created_at: timestamp,
  data: /* @__PURE__ */ v.record(/* @__PURE__ */ text(64), /* @__PURE__ */ v.unknown()),
};

export const Event = /* @__PURE__ */ v.strictObject(eventFields);

export const DeliveryWithEvent = /* @__PURE__ */ v.strictObject(
  /* @__PURE__ */ merged(deliveryFields, { event: /* @__PURE__ */ nullable(Event) }),
);

export const EventPublished = /* @__PURE__ */ v.strictObject(
  /* @__PURE__ */ merged(eventFields, { delivery_count: /* @__PURE__ */ count(1000) }),
);

export const TestEventSent = /* @__PURE__ */ v.strictObject({
  event: Event,
  delivery_id: deliveryId,
});

export const Recovery = /* @__PURE__ */ v.strictObject({
  recovered: /* @__PURE__ */ count(100),
  has_more: /* @__PURE__ */ v.boolean(),
});

export const EventType = /* @__PURE__ */ v.strictObject({
  type: eventType,
  description: sentence,
  schema: /* @__PURE__ */ v.record(/* @__PURE__ */ text(64), /* @__PURE__ */ v.unknown()),
  /** An event of this type as a receiver gets it. */
  example: Event,
});

// Receivers

export const InboundReceived = /* @__PURE__ */ v.strictObject({
  received: /* @__PURE__ */ v.literal(true),
  event_id: /* @__PURE__ */ text(255, 'evt_1NirD82eZvKYlo2CEv4h0mqV'),
  duplicate: /* @__PURE__ */ v.boolean(),
  route: /* @__PURE__ */ v.picklist(['subscription', 'general']),
});
