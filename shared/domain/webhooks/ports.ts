import type { Clock } from '../clock.js';
import type { EventType } from '../event-types.js';
import type { Mailer } from '../messages.js';
import type { PageOf, PageRequest } from '../pages.js';
import type { FailureDigestRepository } from './failure-digest.js';
import type {
  AttemptMessage,
  AttemptRecord,
  DeliverableEventType,
  Delivery,
  DeliveryStatus,
  DisabledReason,
  EndpointStatus,
  StoredEvent,
  WebhookEndpoint,
} from './model.js';

/** What a PATCH changes on an endpoint; absent fields stay as they are. */
export interface EndpointChange {
  url?: string;
  events?: EventType[];
  description?: string;
  /** A new `rate_limit`; null takes it off. */
  rateLimit?: number | null;
  /** A move between enabled and disabled (only when the status differs from the one read). */
  status?: { to: 'enabled' } | { to: 'disabled'; reason: DisabledReason; at: number };
  /** Forgets the failure streak: a new URL or a re-enabled endpoint gets a fresh start. */
  resetFailing: boolean;
  /** ISO 8601 UTC. */
  updatedAt: string;
}

export type EndpointUpdate =
  | { outcome: 'updated'; endpoint: WebhookEndpoint }
  | { outcome: 'not_found' }
  /** The status is no longer the one the change was computed from (a concurrent change). */
  | { outcome: 'status_changed' };

/** Endpoints of an account (DynamoDB: one partition per account). */
export interface EndpointRepository {
  /**
   * Stores the endpoint unless its account has `limit` endpoints already — counted in the same
   * write, so concurrent registrations cannot pass the limit together. False when it is full.
   */
  create(endpoint: WebhookEndpoint, limit: number): Promise<boolean>;
  /** Every endpoint of the account (at most its cap of them). */
  listForAccount(accountId: string): Promise<WebhookEndpoint[]>;
  /** One page of the account's endpoints that `matches` keeps, newest first; its total exact. */
  pageForAccount(
    accountId: string,
    matches: (endpoint: WebhookEndpoint) => boolean,
    request: PageRequest,
  ): Promise<PageOf<WebhookEndpoint>>;
  get(accountId: string, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** Applies `change` while the endpoint's status is still `expectedStatus`. */
  update(
    accountId: string,
    endpointId: string,
    change: EndpointChange,
    expectedStatus: EndpointStatus,
  ): Promise<EndpointUpdate>;
  /** False when there was no such endpoint. */
  delete(accountId: string, endpointId: string): Promise<boolean>;
  /** Replaces the secret and keeps the old one signing until `previousExpiresAt`. */
  rotateSecret(
    accountId: string,
    endpointId: string,
    secret: string,
    previousExpiresAt: number,
  ): Promise<WebhookEndpoint | undefined>;
  /** Starts a failure streak at `since` (epoch ms) unless one is running. */
  markFailing(accountId: string, endpointId: string, since: number): Promise<void>;
  /** Ends the streak that started at `since` (a success came). */
  clearFailing(accountId: string, endpointId: string, since: number): Promise<void>;
  /**
   * Disables an enabled endpoint for failing, only while the streak that started at `since` still
   * runs. True for the one call that disabled it.
   */
  disableForFailing(
    accountId: string,
    endpointId: string,
    since: number,
    at: number,
  ): Promise<boolean>;
  /**
   * Endpoints enabled again before `before` (epoch ms) whose paused deliveries may not all have
   * been sent, each with the time of the enabling that marked it (ISO).
   */
  listResuming(
    before: number,
    limit: number,
  ): Promise<{ endpoint: WebhookEndpoint; enabledAt: string }[]>;
  /** Clears the mark of the enabling at `enabledAt`, unless a later one replaced it. */
  finishResuming(accountId: string, endpointId: string, enabledAt: string): Promise<void>;
}

export interface IdempotencyClaim {
  key: string;
  /** SHA-256 of the request, so a reused key with another body is refused. */
  fingerprint: string;
  /** Epoch milliseconds after which the key may be used again. */
  expiresAt: number;
}

export type CreateEventResult =
  | { created: true }
  | { created: false; existing: StoredEvent; fingerprint: string };

export interface EventRepository {
  /**
   * Stores the event, marked "fan-out pending", together with the idempotency key if any (one
   * transaction). When the key is live already, nothing is written and the earlier event returns.
   */
  create(event: StoredEvent, idempotency?: IdempotencyClaim): Promise<CreateEventResult>;
  /** Clears the "fan-out pending" mark once every delivery exists. */
  markFannedOut(eventId: string): Promise<void>;
  /** Events still marked "fan-out pending" that were created before `before` (epoch ms). */
  listStalledFanOuts(before: number, limit: number): Promise<StoredEvent[]>;
}

/** A creation-time window, ISO 8601 UTC bounds, both exclusive. */
export interface CreatedWindow {
  createdAfter?: string;
  createdBefore?: string;
}

/** The statuses a client sees: attempting and paused deliveries are pending to them. */
export type PublicDeliveryStatus = Exclude<DeliveryStatus, 'attempting' | 'paused'>;

export interface DeliveryListFilter extends CreatedWindow {
  status?: PublicDeliveryStatus;
  eventType?: DeliverableEventType;
}

export interface AttemptTarget {
  event?: StoredEvent;
  endpoint?: WebhookEndpoint;
}

/** How a claimed attempt ends: the record, and the state the delivery moves to. */
export type AttemptResolution =
  | { status: 'delivered' }
  | { status: 'failed' }
  | { status: 'pending'; nextAttemptAt: number };

/** What a claim on an attempt holds, and when (epoch ms): `claimTerms` in attempt-delivery.ts. */
export interface ClaimTerms {
  token: string;
  now: number;
  /** A pending attempt due up to this time may be claimed. */
  dueBy: number;
  leaseUntil: number;
}

export interface DeliveryRepository {
  /**
   * Stores new deliveries and returns those it created. With `mayExist` (a repeated fan-out),
   * deliveries that exist already are left exactly as they are — ids follow from event and
   * endpoint, so a repeat finds them.
   */
  createMany(deliveries: Delivery[], options: { mayExist: boolean }): Promise<Delivery[]>;
  get(deliveryId: string): Promise<Delivery | undefined>;
  /**
   * Claims `attempt` of a delivery in one conditional write: the delivery is pending for exactly
   * this attempt and due, or a claim on this same attempt has outlived its lease. Undefined when
   * the attempt is already claimed by a live worker, done, or not due — the message is a
   * duplicate and is dropped.
   */
  claim(deliveryId: string, attempt: number, claim: ClaimTerms): Promise<Delivery | undefined>;
  /** The event and the endpoint an attempt needs, in one round trip. */
  loadTarget(delivery: Delivery): Promise<AttemptTarget>;
  /**
   * Appends the attempt and moves the delivery on, only while `claimToken` still holds the claim.
   * False when another worker took the claim over (this outcome is then discarded).
   */
  recordAttempt(
    delivery: Delivery,
    claimToken: string,
    record: AttemptRecord,
    resolution: AttemptResolution,
  ): Promise<boolean>;
  /**
   * Puts the claimed attempt back, unmade and not counted as an attempt, due at `until` (its
   * endpoint was busy or its rate spent); counts the deferral. False when `claimToken` no longer
   * holds the claim.
   */
  defer(delivery: Delivery, claimToken: string, until: number): Promise<boolean>;
  /** Ends a delivery whose endpoint was deleted: failed, without an attempt. */
  abandon(deliveryId: string, claimToken: string): Promise<void>;
  /**
   * Leaves the claimed attempt unmade, waiting for the endpoint to be enabled again; false when
   * `claimToken` no longer holds the claim.
   */
  pause(delivery: Delivery, claimToken: string): Promise<boolean>;
  /** The oldest `limit` deliveries paused for an endpoint. */
  listPaused(endpointId: string, limit: number): Promise<Delivery[]>;
  /** A paused delivery becomes pending and due at `now`; false when it is not paused any more. */
  resume(deliveryId: string, now: number): Promise<boolean>;
  /**
   * Makes a finished delivery due at `now` for `attempts` more attempts — a new ladder — or brings
   * a pending one forward. Undefined when the delivery changed since it was read.
   */
  reopen(delivery: Delivery, now: number, attempts: number): Promise<Delivery | undefined>;
  /** One page of the endpoint's deliveries matching `filter`, newest first. */
  listForEndpoint(
    endpointId: string,
    filter: DeliveryListFilter,
    request: PageRequest,
  ): Promise<PageOf<Delivery>>;
  /** The oldest `limit` failed deliveries of an endpoint created within `window`. */
  listFailed(endpointId: string, window: CreatedWindow, limit: number): Promise<Delivery[]>;
  /**
   * A page of the deliveries whose next step (attempt or lease expiry) is due before `before`
   * (epoch ms), oldest first, from `cursor` (the previous page's); no `cursor` after the last.
   */
  listDuePage(
    before: number,
    limit: number,
    cursor?: string,
  ): Promise<{ deliveries: Delivery[]; cursor?: string }>;
}

/** What an endpoint may take at once. */
export interface EndpointLimits {
  /** Attempts in flight at once (WEBHOOK_ENDPOINT_MAX_IN_FLIGHT). */
  inFlight: number;
  /** Attempts started per second, when the owner set a `rate_limit`. */
  ratePerSecond?: number;
  /** Admits even while the circuit is open: the attempt is its owner's explicit try. */
  ignoreCircuit?: boolean;
}

/** Whether an attempt may go out now. */
export type Admission =
  | { admitted: true }
  /** Every place in flight is taken. */
  | { admitted: false; reason: 'busy' }
  /** The owner's `rate_limit` is spent until `nextFreeAt` (epoch ms). */
  | { admitted: false; reason: 'rate_limited'; nextFreeAt: number }
  /** The circuit is open until `openUntil` (epoch ms), or its one probe is under way. */
  | { admitted: false; reason: 'circuit_open'; openUntil: number; consecutiveFailures: number };

/** An endpoint's circuit after an attempt's outcome was counted. */
export interface CircuitState {
  /** Timeouts, network errors and 5xx answers since its last answer below 500. */
  consecutiveFailures: number;
  /** How many times in a row the circuit has opened (0 once an answer closed it). */
  trips: number;
  /** Epoch ms; absent or past while the circuit is closed. */
  openUntil?: number;
}

/** The in-flight places, rates and circuits of endpoints (DynamoDB: one item per endpoint). */
export interface EndpointLoadRepository {
  /**
   * Takes a place for one attempt at `now`, within `limits`, unless the circuit is open: one
   * conditional write, so concurrent workers cannot pass a limit together.
   */
  admit(endpointId: string, limits: EndpointLimits, now: number): Promise<Admission>;
  /**
   * Gives the place back and counts the outcome (`failed`: a timeout, network error or 5xx;
   * anything else closes the circuit). Answers the circuit as it now is.
   */
  release(endpointId: string, failed: boolean, now: number): Promise<CircuitState>;
  /** Opens the circuit until `openUntil` unless it is open at `now` (of concurrent failures, one opens it). */
  open(endpointId: string, openUntil: number, now: number): Promise<void>;
}

/** The account's contact address for failure notices. */
export interface AccountContacts {
  emailOf(accountId: string): Promise<string | undefined>;
}

export interface EnqueuedAttempt extends AttemptMessage {
  /** 0 to 900 seconds (SQS's limit). */
  delaySeconds: number;
}

/** The delivery queue (SQS on AWS): one message per attempt. */
export interface DeliveryQueue {
  enqueue(messages: EnqueuedAttempt[]): Promise<void>;
}

/**
 * Wakes the retry ladder at a minute further out than the queue can delay (EventBridge Scheduler:
 * one one-time schedule per due minute, named after it, which puts a `LadderWake` on the queue).
 */
export interface RetryScheduler {
  /** Creating the wake-up of a minute that has one already is success. */
  wakeAt(dueMinute: number): Promise<void>;
}

/**
 * Which due minutes have their wake-up, so that the deliveries due in one minute cost one
 * CreateSchedule between them, not one each.
 */
export interface LadderMinuteRepository {
  /** True for the one caller that is to create the minute's wake-up. */
  claim(dueMinute: number): Promise<boolean>;
  /** Forgets a claim whose wake-up could not be created, so a later retry creates it. */
  release(dueMinute: number): Promise<void>;
}

export interface SignedRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface SendOutcome {
  /** HTTP status when a response arrived. */
  status?: number;
  /** The response's headers (names in lower case), up to 1 KiB of them. */
  headers?: Record<string, string>;
  latencyMs: number;
  /** Up to 1 KiB of the response body. */
  body?: string;
  error?: string;
}

/** Posts one attempt: SSRF-checked, pinned to the checked address, no redirects, 10 s. */
export interface WebhookSender {
  send(request: SignedRequest): Promise<SendOutcome>;
}

/** Resolves a URL's host and refuses private and metadata addresses (the SSRF guard). */
export interface UrlGuard {
  /** Undefined when allowed, else the public reason it is refused. */
  check(url: string): Promise<string | undefined>;
}

export interface WebhookDependencies {
  endpoints: EndpointRepository;
  loads: EndpointLoadRepository;
  events: EventRepository;
  deliveries: DeliveryRepository;
  accounts: AccountContacts;
  queue: DeliveryQueue;
  scheduler: RetryScheduler;
  ladderMinutes: LadderMinuteRepository;
  digests: FailureDigestRepository;
  sender: WebhookSender;
  urlGuard: UrlGuard;
  mailer: Mailer;
  clock: Clock;
  /** Delay in seconds before each attempt (index 0: the first). */
  retryDelaysSeconds: number[];
  /** Days an endpoint may fail without one success before it is disabled. */
  disableAfterDays: number;
  /** Attempts one endpoint may have in flight at once. */
  endpointMaxInFlight: number;
}
