import type { IndexName } from './table-definition.js';

/**
 * Every key of the single table, built in one place. An item's kind is visible from its pk
 * prefix; a reader of this file sees every access pattern the service has.
 */

export interface ItemKey {
  pk: string;
  sk: string;
}

const item = (pk: string, sk = '#'): ItemKey => ({ pk, sk });

/**
 * Shards of the due-delivery index. A fan-out writes one due entry per endpoint in a burst of
 * BatchWriteItem calls, and each attempt moves the entry twice more (claim, record); one partition
 * of an index absorbs about 1,000 writes a second, and a GSI that cannot keep up throttles the
 * table writes feeding it. With one key, an event published to a few thousand endpoints (or a
 * few busy accounts at once) meets on that key; eight shards give the burst eight partitions,
 * while the sweeper's pass (every five minutes) stays eight small queries sent together. More
 * shards cost the sweeper reads and buy nothing until fan-out outgrows eight partitions.
 */
export const dueDeliveryShards = 8;

/** A stable shard in [0, count) of an id: FNV-1a over its characters. */
function shardOf(id: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) {
    hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  }
  return (hash >>> 0) % count;
}

/**
 * The partitions of a sharded key: `<base>#<shard>` for each of `count` shards, and `base` itself,
 * where items written before the key was sharded stay until they are next moved or expire. A
 * reader of a sharded queue reads every one of them (`queryWorkShards`).
 */
const shardedPartitions = (base: string, count: number): string[] => [
  ...Array.from({ length: count }, (_, shard) => `${base}#${shard}`),
  base,
];

/** A shard of `base` for the item of `id`. */
const shardFor = (base: string, id: string, count: number) => `${base}#${shardOf(id, count)}`;

/** Every partition of the due-delivery index: its shards, and the unsharded `DELIVERIES_DUE`. */
export const dueDeliveryPartitions = (): string[] =>
  shardedPartitions('DELIVERIES_DUE', dueDeliveryShards);

/**
 * Shards of every other work queue kept on gsi2 (fan-outs left unfinished, inbound events waiting
 * for the sweeper, endpoints being resumed) and of a receiver source's audit records on gsi1: each
 * is written by requests (a publication, a gateway's call, a PATCH), and one partition of an index
 * takes about 1,000 writes of 1 KB a second. Eight shards take about 8,000 a second; their
 * readers (sweepers every few minutes, the audit listing) read the eight at once.
 */
export const workShards = 8;

/** Every partition of the unfinished fan-outs. */
export const stalledFanOutPartitions = (): string[] =>
  shardedPartitions('EVENTS_FANOUT_PENDING', workShards);

/** Every partition of the inbound events waiting for the sweeper. */
export const stalledInboundPartitions = (): string[] =>
  shardedPartitions('INBOUND_DUE', workShards);

/** Every partition of the endpoints being resumed. */
export const resumingEndpointPartitions = (): string[] =>
  shardedPartitions('ENDPOINTS_RESUMING', workShards);

/** Every partition of a receiver source's audit records. */
export const inboundAttemptPartitions = (source: string): string[] =>
  shardedPartitions(`INBOUND_ATTEMPTS#${source}`, workShards);

/** Shards of the due-digest index: a digest is written on each failure of its endpoint's day. */
export const dueDigestShards = 8;

/** Every partition of the due-digest index. */
export const dueDigestPartitions = (): string[] =>
  Array.from({ length: dueDigestShards }, (_, shard) => `DIGESTS_DUE#${shard}`);

export const keys = {
  /** A user account. */
  user: (userId: string) => item(`USER#${userId}`, 'PROFILE'),
  /** Uniqueness guard for an email address (lower-cased); holds the owner's user id. */
  emailGuard: (email: string) => item(`EMAIL#${email}`),
  /** Uniqueness guard for a verified E.164 phone number; holds the owner's user id. */
  phoneGuard: (phone: string) => item(`PHONE#${phone}`),
  /**
   * Failed password checks of one email from one source IP, and its lock: per email and source,
   * never per account, so an unknown email has one too and a stranger's source is throttled
   * without the owner's. One partition per email, so a password reset lifts every lock at once.
   */
  loginThrottle: (email: string, source: string) => item(`LOGIN_THROTTLE#${email}`, source),
  /** All throttle records of an email: query this pk. */
  loginThrottles: (email: string) => ({ pk: `LOGIN_THROTTLE#${email}` }),
  /**
   * A session (one login), in its user's partition: access tokens carry the user as `sub` and the
   * session as `sid`, and revoking every session of a user is one strongly consistent Query.
   */
  session: (userId: string, sessionId: string) => item(`USER#${userId}`, `SESSION#${sessionId}`),
  /** All sessions of a user: query pk with this prefix on sk. */
  userSessions: (userId: string) => ({ pk: `USER#${userId}`, skPrefix: 'SESSION#' }),
  /** A refresh token, by the SHA-256 of its value. */
  refreshToken: (tokenHash: string) => item(`REFRESH#${tokenHash}`),
  /** The account's authenticator app (its secret, last step used, recovery-code hashes). */
  totp: (userId: string) => item(`USER#${userId}`, 'TOTP'),
  /** A secret waiting for its first code, in its account's partition (TTL). */
  totpEnrolment: (userId: string) => item(`USER#${userId}`, 'TOTP_ENROLMENT'),
  /** A passkey, by its credential id: what a passkey sign-in looks up. */
  passkey: (credentialId: string) => item(`PASSKEY#${credentialId}`),
  /** The same passkey in its account's partition: what the account's list reads. */
  userPasskey: (userId: string, credentialId: string) =>
    item(`USER#${userId}`, `PASSKEY#${credentialId}`),
  /** All passkeys of a user: query pk with this prefix on sk. */
  userPasskeys: (userId: string) => ({ pk: `USER#${userId}`, skPrefix: 'PASSKEY#' }),
  /** A passkey ceremony's challenge, until it is answered (TTL). */
  passkeyChallenge: (challenge: string) => item(`PASSKEY_CHALLENGE#${challenge}`),
  /** A sign-in waiting for its second factor, by the SHA-256 of its ticket (TTL). */
  mfaTicket: (ticketHash: string) => item(`MFA_TICKET#${ticketHash}`),
  /**
   * The public keys that verify access tokens, as a JWKS: written by the functions that hold the
   * signing seeds when the seeds change (a rotation), read by every function that checks a token
   * (once a minute per running function) and by the JWKS document.
   */
  accessTokenKeys: () => item('ACCESS_TOKEN_KEYS'),
  /**
   * The live OTP for one channel + target + purpose, and the user it is bound to when it is
   * (generic codes: each user's code for a number is its own).
   */
  otp: (channel: string, target: string, purpose: string, subject?: string) =>
    item(`OTP#${channel}#${target}#${purpose}${subject === undefined ? '' : `#${subject}`}`),
  /**
   * Wrong-code budget per target and purpose (and bound user), and per source (the caller's
   * counting address): survives new codes being issued.
   */
  otpAttempts: (
    channel: string,
    target: string,
    purpose: string,
    subject: string | undefined,
    source: string,
  ) =>
    item(
      `OTP_ATTEMPTS#${channel}#${target}#${purpose}${subject === undefined ? '' : `#${subject}`}`,
      `SOURCE#${source}`,
    ),
  /** Sends to one target in one hour window, all sources together. */
  otpSends: (channel: string, target: string, hourWindow: number) =>
    item(`OTP_SENDS#${channel}#${target}`, `${hourWindow}`),
  /** Sends to one target asked for by one source in one hour window. */
  otpSourceSends: (channel: string, target: string, hourWindow: number, source: string) =>
    item(`OTP_SENDS#${channel}#${target}`, `${hourWindow}#SOURCE#${source}`),
  /**
   * Wrong codes of one target (and bound user) in one UTC day, all purposes and sources (the
   * target's ceiling), and each source's share of them.
   */
  otpFailures: (channel: string, target: string, subject: string | undefined, dayStart: number) =>
    item(
      `OTP_FAILURES#${channel}#${target}${subject === undefined ? '' : `#${subject}`}`,
      `${dayStart}`,
    ),
  /**
   * Texts sent by the whole service in one clock hour (SMS_MAX_PER_HOUR caps it), in one of
   * `smsSendShards` items so that no one partition takes every text.
   */
  smsSends: (hourStart: number, shard: number) => item(`SMS_SENDS#${hourStart}#${shard}`),
  /** A signed-in account's generic texts of one UTC day, and the numbers of each hour. */
  genericSms: (userId: string, dayStart: number) => item(`GENERIC_SMS#${userId}`, `${dayStart}`),
  /** The last "someone tried to sign up with your email" notice to one email (one per window). */
  signupNotice: (email: string) => item(`SIGNUP_NOTICE#${email}`),
  /** A fixed-window request counter for one client (or one limit scope) and one window. */
  rateCounter: (scope: string, client: string, windowStart: number) =>
    item(`RATE#${scope}#${client}`, `${windowStart}`),
  /** An outbound webhook endpoint of an account. */
  webhookEndpoint: (accountId: string, endpointId: string) =>
    item(`ACCOUNT#${accountId}`, `ENDPOINT#${endpointId}`),
  /** All endpoints of an account: query pk with this prefix on sk. */
  accountEndpoints: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: 'ENDPOINT#' }),
  /**
   * How many endpoints an account has, written in the same transaction as each endpoint's put and
   * delete so the per-account cap holds under concurrent registrations. Its sk does not start
   * with `ENDPOINT#`, so listing the endpoints does not see it.
   */
  webhookEndpointCount: (accountId: string) => item(`ACCOUNT#${accountId}`, 'ENDPOINT_COUNT'),
  /** A published outbound event with its exact payload bytes. */
  event: (eventId: string) => item(`EVENT#${eventId}`),
  /** Idempotency-Key of an event publication, per account. */
  eventIdempotency: (accountId: string, idempotencyKey: string) =>
    item(`EVENT_IDEMPOTENCY#${accountId}#${idempotencyKey}`),
  /** One delivery of one event to one endpoint. */
  delivery: (deliveryId: string) => item(`DELIVERY#${deliveryId}`),
  /**
   * One attempt of a delivery, in the delivery's partition, by number (zero-padded, so the latest
   * sort last): its outcome and up to 1 KiB of the response body, kept as long as the delivery.
   */
  deliveryAttempt: (deliveryId: string, attempt: number) =>
    item(`DELIVERY#${deliveryId}`, `ATTEMPT#${String(attempt).padStart(6, '0')}`),
  /** The attempts of a delivery: query pk with this prefix on sk. */
  deliveryAttempts: (deliveryId: string) => ({
    pk: `DELIVERY#${deliveryId}`,
    skPrefix: 'ATTEMPT#',
  }),
  /**
   * An endpoint's attempts in flight, its rate and its circuit: written by each attempt to that
   * endpoint (admitted, then released), one partition per endpoint.
   */
  endpointLoad: (endpointId: string) => item(`ENDPOINT_LOAD#${endpointId}`),
  /**
   * A due minute of the retry ladder whose wake-up schedule exists: put once per minute by each
   * warm worker at most (they remember it), so never a write per delivery.
   */
  ladderMinute: (dueMinute: number) => item(`LADDER_MINUTE#${dueMinute}`),
  /** One endpoint's deliveries that failed for good on one UTC day: its owner's digest. */
  failureDigest: (endpointId: string, day: number) =>
    item(`FAILURE_DIGEST#${endpointId}`, `${day}`),
  /** gsi2: unsent digests by when they may be sent, in shards by endpoint. */
  dueDigests: (endpointId: string) => ({
    gsi2pk: `DIGESTS_DUE#${shardOf(endpointId, dueDigestShards)}`,
  }),
  /** gsi1: the deliveries of an endpoint, by creation time. */
  endpointDeliveries: (endpointId: string) => ({ gsi1pk: `ENDPOINT_DELIVERIES#${endpointId}` }),
  /**
   * gsi2: deliveries not finished yet, by when their next step is due (the next attempt, or the
   * expiry of a claim); the item leaves the index when delivered or failed. Spread over
   * `dueDeliveryShards` partitions by the delivery id, so a large fan-out's writes do not all meet
   * on one index partition; the sweeper reads every shard (`dueDeliveryPartitions`).
   */
  dueDeliveries: (deliveryId: string) => ({
    gsi2pk: shardFor('DELIVERIES_DUE', deliveryId, dueDeliveryShards),
  }),
  /**
   * gsi2: the deliveries of a disabled endpoint whose attempt came due and waits, by when it was
   * due; enabling the endpoint sends them (oldest first) and they leave this partition.
   */
  pausedDeliveries: (endpointId: string) => ({ gsi2pk: `ENDPOINT_PAUSED#${endpointId}` }),
  /**
   * gsi2: the failed deliveries of an endpoint, by `created_at#id` — what recovery re-queues;
   * a recovered delivery leaves this partition, so a repeated recovery finds only the rest.
   */
  failedDeliveries: (endpointId: string) => ({ gsi2pk: `ENDPOINT_FAILED#${endpointId}` }),
  /**
   * gsi2: endpoints enabled again whose paused deliveries may not all be sent yet (the request
   * that enabled one sends a first batch; the sweeper the rest), by when they were enabled; in
   * `workShards` shards by the endpoint (`resumingEndpointPartitions`).
   */
  resumingEndpoints: (endpointId: string) => ({
    gsi2pk: shardFor('ENDPOINTS_RESUMING', endpointId, workShards),
  }),
  /**
   * gsi2: events whose deliveries are not all created yet, by creation time (the sweeper's); in
   * `workShards` shards by the event (`stalledFanOutPartitions`).
   */
  stalledFanOuts: (eventId: string) => ({
    gsi2pk: shardFor('EVENTS_FANOUT_PENDING', eventId, workShards),
  }),
  /** Dedupe record of an inbound webhook event, by source and the source's event id. */
  inboundEvent: (source: string, eventId: string) => item(`INBOUND#${source}#${eventId}`),
  /**
   * gsi2: inbound events not processed yet, by when the sweeper should step in (received + grace,
   * or lease end + grace); the item leaves the index when processed or failed. In `workShards`
   * shards by the event (`stalledInboundPartitions`).
   */
  stalledInboundEvents: (source: string, eventId: string) => ({
    gsi2pk: shardFor('INBOUND_DUE', `${source}#${eventId}`, workShards),
  }),
  /** Audit record of one inbound webhook attempt; gsi1 lists a source's attempts by time. */
  inboundAttempt: (source: string, attemptId: string) =>
    item(`INBOUND_ATTEMPT#${source}#${attemptId}`),
  /**
   * gsi1: a source's audit records by time, in `workShards` shards by the attempt (a gateway's
   * calls all come from one source): `inboundAttemptPartitions`.
   */
  inboundAttemptsBySource: (source: string, attemptId: string) => ({
    gsi1pk: shardFor(`INBOUND_ATTEMPTS#${source}`, attemptId, workShards),
  }),
  /** A gateway subscription of an account. */
  subscription: (accountId: string, subscriptionId: string) =>
    item(`ACCOUNT#${accountId}`, `SUBSCRIPTION#${subscriptionId}`),
  /** An inbound message of the messaging platform, by the platform's message id. */
  messagingMessage: (messageId: string) => item(`MESSAGING#${messageId}`, 'MESSAGE'),
  /** One delivery status (sent, delivered, read, failed) of a message we sent. */
  messagingStatus: (messageId: string, status: string) =>
    item(`MESSAGING#${messageId}`, `STATUS#${status}`),
};

/**
 * The partition families of the table and of its indexes: what a function may be granted, each
 * one IAM `dynamodb:LeadingKeys` pattern (a prefix, or an exact value for a fixed partition: the
 * published token keys). Every partition key that `keys` builds falls in
 * exactly one family (a test holds this), so a new kind of item needs its family here before any
 * function can be given it.
 */
export const itemFamilies = {
  /** Accounts and, in the same partition, their sessions. */
  user: { prefix: 'USER#' },
  emailGuard: { prefix: 'EMAIL#' },
  phoneGuard: { prefix: 'PHONE#' },
  /** Failed password checks and locks, per email and source. */
  loginThrottle: { prefix: 'LOGIN_THROTTLE#' },
  refreshToken: { prefix: 'REFRESH#' },
  /** Passkeys by credential id (their list copies live in the account's partition). */
  passkey: { prefix: 'PASSKEY#' },
  passkeyChallenge: { prefix: 'PASSKEY_CHALLENGE#' },
  /** Sign-ins waiting for their second factor. */
  mfaTicket: { prefix: 'MFA_TICKET#' },
  /** The published access-token verification keys: written by issuers only, read by verifiers. */
  accessTokenKeys: { exact: 'ACCESS_TOKEN_KEYS' },
  otp: { prefix: 'OTP#' },
  otpAttempts: { prefix: 'OTP_ATTEMPTS#' },
  otpSends: { prefix: 'OTP_SENDS#' },
  /** Wrong codes per target and UTC day, and each source's share. */
  otpFailures: { prefix: 'OTP_FAILURES#' },
  /** The service-wide count of texts per hour (SMS_MAX_PER_HOUR), in shards. */
  smsSends: { prefix: 'SMS_SENDS#' },
  /** A signed-in account's generic texts per day and numbers per hour. */
  genericSms: { prefix: 'GENERIC_SMS#' },
  signupNotice: { prefix: 'SIGNUP_NOTICE#' },
  /** Every rate-limit window: the per-client limit of each API call, and the per-route limits. */
  rateCounter: { prefix: 'RATE#' },
  /** A webhook account's endpoints, its endpoint count and its gateway subscriptions. */
  account: { prefix: 'ACCOUNT#' },
  event: { prefix: 'EVENT#' },
  eventIdempotency: { prefix: 'EVENT_IDEMPOTENCY#' },
  delivery: { prefix: 'DELIVERY#' },
  endpointLoad: { prefix: 'ENDPOINT_LOAD#' },
  ladderMinute: { prefix: 'LADDER_MINUTE#' },
  failureDigest: { prefix: 'FAILURE_DIGEST#' },
  inboundEvent: { prefix: 'INBOUND#' },
  inboundAttempt: { prefix: 'INBOUND_ATTEMPT#' },
  messaging: { prefix: 'MESSAGING#' },
  endpointDeliveries: { index: 'gsi1', prefix: 'ENDPOINT_DELIVERIES#' },
  inboundAttemptsBySource: { index: 'gsi1', prefix: 'INBOUND_ATTEMPTS#' },
  /** `DELIVERIES_DUE#<shard>`, and the unsharded `DELIVERIES_DUE` of older deliveries. */
  dueDeliveries: { index: 'gsi2', prefix: 'DELIVERIES_DUE' },
  pausedDeliveries: { index: 'gsi2', prefix: 'ENDPOINT_PAUSED#' },
  failedDeliveries: { index: 'gsi2', prefix: 'ENDPOINT_FAILED#' },
  /** `<queue>#<shard>`, and the unsharded partition of items written before the sharding. */
  resumingEndpoints: { index: 'gsi2', prefix: 'ENDPOINTS_RESUMING' },
  stalledFanOuts: { index: 'gsi2', prefix: 'EVENTS_FANOUT_PENDING' },
  stalledInboundEvents: { index: 'gsi2', prefix: 'INBOUND_DUE' },
  dueDigests: { index: 'gsi2', prefix: 'DIGESTS_DUE#' },
} as const satisfies Record<string, ItemFamilyKeys>;

interface ItemFamilyKeys {
  /** Where the family's partitions live: the table, or an index (queried only). */
  index?: IndexName;
  prefix?: string;
  exact?: string;
}

export type ItemFamily = keyof typeof itemFamilies;

/** Where a family's partitions live: an index, or the table (undefined). */
export function itemFamilyIndex(family: ItemFamily): IndexName | undefined {
  return (itemFamilies[family] as ItemFamilyKeys).index;
}

/** The family's partitions as an IAM `StringLike` pattern. */
export function leadingKeyPattern(family: ItemFamily): string {
  const keys: ItemFamilyKeys = itemFamilies[family];
  return keys.exact ?? `${keys.prefix}*`;
}

/** The family a partition key value belongs to, in the table or in `index`. */
export function itemFamilyOf(partition: string, index?: IndexName): ItemFamily | undefined {
  return (Object.keys(itemFamilies) as ItemFamily[]).find((family) => {
    const keys: ItemFamilyKeys = itemFamilies[family];
    if (keys.index !== index) return false;
    return keys.exact !== undefined ? partition === keys.exact : partition.startsWith(keys.prefix!);
  });
}
