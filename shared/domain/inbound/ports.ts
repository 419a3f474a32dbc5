import type { Clock } from '../clock.js';
import type { EventType } from '../event-types.js';
import type {
  InboundAttempt,
  InboundEvent,
  InboundEventStatus,
  InboundSource,
  ProcessingRequest,
} from './model.js';
import type { UnprovenSample } from './unproven-sample.js';

export type RecordEventResult =
  | { created: true }
  /** `status` of the stored original; `stalled` when processing should be asked for again. */
  | { created: false; status: InboundEventStatus; stalled: boolean };

/** A claimed event, ready to be acted on by exactly one worker. */
export type ClaimResult =
  | { claimed: true; event: InboundEvent }
  | { claimed: false; reason: 'done' | 'busy' | 'missing' };

/** The dedupe records of accepted events (DynamoDB: one item per source and event id). */
export interface InboundEventStore {
  /**
   * Stores the event as `received` unless a live record of the same source and event id exists
   * (one conditional write, so two copies arriving together cannot both be created).
   */
  record(event: InboundEvent, now: number): Promise<RecordEventResult>;
  /** Moves `received` (or a `processing` whose lease ran out) to `processing` until `leaseUntil`. */
  claim(request: ProcessingRequest, now: number, leaseUntil: number): Promise<ClaimResult>;
  /** Ends processing: `processed` or `failed`, with a short note of what was done. */
  finish(
    request: ProcessingRequest,
    status: 'processed' | 'failed',
    result: string,
    now: number,
  ): Promise<void>;
  /** Gives a claimed event back (`received`) after a transient failure, so a retry can claim it. */
  release(request: ProcessingRequest): Promise<void>;
  /**
   * Events still `received`, or `processing` past their lease, whose `dueAt` is before `now`
   * (the sweeper's query), oldest first, at most `limit`.
   */
  listStalled(now: number, limit: number): Promise<StalledEvent[]>;
  /**
   * Counts one more sweep of an event and makes it due again at `nextDueAt`; false (nothing
   * written) when it was claimed, finished or swept by someone else since it was listed.
   */
  markSwept(event: StalledEvent, nextDueAt: number): Promise<boolean>;
  /** Gives up on a stalled event: `failed` with `result`; false when it moved on since listed. */
  abandon(event: StalledEvent, result: string, now: number): Promise<boolean>;
}

/** An accepted event that was not processed when it should have been. */
export interface StalledEvent extends ProcessingRequest {
  status: 'received' | 'processing';
  /** When it became due for a sweep (epoch ms): identifies this listing in the conditions. */
  dueAt: number;
  /** Sweeps that re-queued it so far. */
  sweeps: number;
}

export interface AttemptPage {
  attempts: InboundAttempt[];
  /** Pass back as `before` for the next (older) page; absent on the last page. */
  next?: string;
}

/** The audit trail of receiver calls (DynamoDB: listed per source, newest first, on gsi1). */
export interface InboundAttemptLog {
  record(attempt: InboundAttempt): Promise<void>;
  listBySource(
    source: InboundSource,
    options?: { limit?: number; before?: string },
  ): Promise<AttemptPage>;
}

/** Hands accepted events to the processing worker (SQS on AWS, in-process locally). */
export interface InboundQueue {
  enqueue(request: ProcessingRequest): Promise<void>;
  /** Several at once (the sweeper's re-queue): SendMessageBatch on SQS. */
  enqueueMany(requests: ProcessingRequest[]): Promise<void>;
}

/** A change to an account's gateway subscription, from one gateway event. */
export interface SubscriptionUpdate {
  accountId: string;
  subscriptionId: string;
  source: InboundSource;
  /** When the gateway created the event (epoch seconds): older events never overwrite newer state. */
  eventCreatedAt: number;
  eventId: string;
  /** The lifecycle state, when the event carries the whole subscription. */
  state?: { status: string; plan?: string; currentPeriodEnd?: string };
  latestInvoice?: { id: string; status: string };
  /** Links a checkout to the subscription it created; the status is only set if none is known. */
  checkout?: { sessionId: string; initialStatus: string };
}

export interface SubscriptionStore {
  /** False when a newer event had already set the state (nothing written). */
  apply(update: SubscriptionUpdate): Promise<boolean>;
}

export interface MessagingMessage {
  id: string;
  from: string;
  type: string;
  /** Text of a text message (truncated), absent for media and others. */
  text?: string;
  /** Epoch seconds, as the platform reports it. */
  sentAt: number;
  phoneNumberId?: string;
}

export interface MessagingStatus {
  messageId: string;
  status: string;
  recipientId?: string;
  /** Epoch seconds. */
  at: number;
  errorTitle?: string;
}

/** Inbound messages and delivery statuses of the messaging platform. */
export interface MessagingRecords {
  save(messages: MessagingMessage[], statuses: MessagingStatus[]): Promise<void>;
}

export interface OutboundEvent {
  type: EventType;
  accountId: string;
  data: Record<string, unknown>;
  idempotencyKey: string;
}

/** Publishes an outbound webhook event (the outbound webhooks' publishing use-case). */
export type PublishOutboundEvent = (event: OutboundEvent) => Promise<unknown>;

export interface ReceiveDependencies {
  events: InboundEventStore;
  attempts: InboundAttemptLog;
  queue: InboundQueue;
  clock: Clock;
  newId: () => string;
  /** Which refused calls of unproven senders are stored: one per process. */
  unprovenSample: UnprovenSample;
}

export interface SweepDependencies {
  events: InboundEventStore;
  queue: InboundQueue;
  clock: Clock;
}

export interface ProcessDependencies {
  events: InboundEventStore;
  subscriptions: SubscriptionStore;
  messaging: MessagingRecords;
  publish: PublishOutboundEvent;
  clock: Clock;
}
