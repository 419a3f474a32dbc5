import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dynamoInboundAttemptLog } from '../../shared/adapters/dynamo-inbound-attempts.js';
import {
  dynamoInboundEventStore,
  inboundEventState,
} from '../../shared/adapters/dynamo-inbound-events.js';
import { dynamoMessagingRecords } from '../../shared/adapters/dynamo-messaging-records.js';
import {
  dynamoSubscriptionStore,
  findSubscription,
} from '../../shared/adapters/dynamo-subscriptions.js';
import { ManualClock } from '../../shared/domain/clock.js';
import type { InboundCall, ProcessingRequest } from '../../shared/domain/inbound/model.js';
import type {
  InboundQueue,
  OutboundEvent,
  ProcessDependencies,
  ReceiveDependencies,
  SweepDependencies,
} from '../../shared/domain/inbound/ports.js';
import { processEvent, processingLeaseMs } from '../../shared/domain/inbound/process-event.js';
import { receiveEvent } from '../../shared/domain/inbound/receive-event.js';
import { gatewayB } from '../../shared/domain/inbound/sources.js';
import {
  inboundSweepGraceMs,
  maxInboundSweeps,
  sweepInboundEvents,
} from '../../shared/domain/inbound/sweep-events.js';
import { UnprovenSample } from '../../shared/domain/inbound/unproven-sample.js';
import { log } from '../../shared/log.js';
import { useFreshTable } from '../support/table.js';
import { gatewayBEvent, gatewayBHeader, gatewayBSecret, inboundCall } from './inbound-support.js';

const clock = new ManualClock(Date.now());
const hour = 60 * 60_000;

/** What the receivers' and the sweeper's SendMessage calls put on the queue, until drained. */
let queued: ProcessingRequest[];
/** While set, every send fails (SQS unavailable). */
let queueDown: boolean;
let published: OutboundEvent[];
/** Accounts whose payment events fail to publish every time (a transient error that persists). */
let brokenAccounts: Set<string>;

const queue: InboundQueue = {
  async enqueue(request) {
    if (queueDown) throw new Error('SQS is unavailable');
    queued.push(request);
  },
  async enqueueMany(requests) {
    if (queueDown) throw new Error('SQS is unavailable');
    queued.push(...requests);
  },
};

const receiveDeps: ReceiveDependencies = {
  events: dynamoInboundEventStore,
  attempts: dynamoInboundAttemptLog,
  queue,
  clock,
  newId: randomUUID,
  unprovenSample: new UnprovenSample(100),
};

const processDeps: ProcessDependencies = {
  events: dynamoInboundEventStore,
  subscriptions: dynamoSubscriptionStore,
  messaging: dynamoMessagingRecords,
  publish: async (event) => {
    if (brokenAccounts.has(event.accountId)) throw new Error('DynamoDB throttled the publication');
    published.push(event);
  },
  clock,
};

const sweepDeps: SweepDependencies = { events: dynamoInboundEventStore, queue, clock };

/** Runs the worker on everything queued so far; a transient failure is left to the sweeper. */
const drainQueue = () =>
  Promise.allSettled(queued.splice(0).map((request) => processEvent(processDeps, request)));

/** One scheduled run: the messages it queued for this test's event. */
async function sweepFor(eventId: string): Promise<ProcessingRequest[]> {
  await sweepInboundEvents(sweepDeps);
  return queued.filter((request) => request.eventId === eventId);
}

const signedB = (event: object): InboundCall => {
  const body = JSON.stringify(event);
  return inboundCall(body, { 'stripe-signature': gatewayBHeader(body, clock.now()) }, clock.now());
};

const receiveB = (event: object) =>
  receiveEvent(receiveDeps, gatewayB, [gatewayBSecret], signedB(event));

/** A subscription event of a fresh account: its effect is a record in the table. */
function subscriptionEvent() {
  const account = `usr_${randomUUID()}`;
  const subscriptionId = `sub_${randomUUID()}`;
  const event = gatewayBEvent(
    'customer.subscription.updated',
    {
      id: subscriptionId,
      object: 'subscription',
      status: 'active',
      metadata: { account_id: account },
      items: { data: [{ price: { id: 'price_pro' }, current_period_end: 1767225600 }] },
    },
    Math.floor(clock.now() / 1000),
  );
  return { event, account, subscriptionId };
}

/** Receives an event while SQS is down: the sender gets a 500 and, here, never retries. */
async function receiveWithFailedHandOff(event: object) {
  queueDown = true;
  await expect(receiveB(event)).rejects.toThrow('SQS is unavailable');
  queueDown = false;
}

beforeAll(async () => {
  await useFreshTable();
});

beforeEach(() => {
  queued = [];
  queueDown = false;
  published = [];
  brokenAccounts = new Set();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the inbound sweeper', () => {
  it('processes an event whose hand-off failed and whose sender never retried', async () => {
    const { event, account, subscriptionId } = subscriptionEvent();
    await receiveWithFailedHandOff(event);

    expect(await sweepFor(event.id)).toEqual([]);
    expect(await inboundEventState('gateway-b', event.id)).toEqual({ status: 'received' });

    clock.advance(inboundSweepGraceMs + 1_000);
    expect(await sweepFor(event.id)).toEqual([{ source: 'gateway-b', eventId: event.id }]);
    await drainQueue();

    expect(await findSubscription(account, subscriptionId)).toMatchObject({ status: 'active' });
    expect(await inboundEventState('gateway-b', event.id)).toMatchObject({ status: 'processed' });
  });

  it('never sweeps a processed event', async () => {
    const { event } = subscriptionEvent();
    await receiveB(event);
    await drainQueue();

    clock.advance(24 * hour);

    expect(await sweepFor(event.id)).toEqual([]);
    expect(await inboundEventState('gateway-b', event.id)).toMatchObject({ status: 'processed' });
  });

  it('leaves an event alone while a worker holds it, and re-queues it once the lease ran out', async () => {
    const { event, account, subscriptionId } = subscriptionEvent();
    await receiveB(event);
    const [request] = queued.splice(0);
    // A worker claims it just before it would have become due, then dies without a word.
    clock.advance(inboundSweepGraceMs - 1_000);
    const claimedAt = clock.now();
    await dynamoInboundEventStore.claim(request!, claimedAt, claimedAt + processingLeaseMs);

    clock.advance(processingLeaseMs - 1_000);
    expect(await sweepFor(event.id)).toEqual([]);
    // Past the lease, SQS's redelivery of the message gets the grace period first.
    clock.advance(inboundSweepGraceMs);
    expect(await sweepFor(event.id)).toEqual([]);

    clock.advance(2_000);
    expect(await sweepFor(event.id)).toEqual([request]);
    await drainQueue();
    expect(await findSubscription(account, subscriptionId)).toMatchObject({ status: 'active' });
  });

  it('gives up on an event that keeps failing, marks it failed and logs an error', async () => {
    const account = `usr_${randomUUID()}`;
    brokenAccounts.add(account);
    const event = gatewayBEvent('payment_intent.succeeded', {
      id: `pi_${randomUUID()}`,
      amount: 500,
      currency: 'usd',
      metadata: { account_id: account },
    });
    await receiveWithFailedHandOff(event);
    const errors = vi.spyOn(log, 'error');

    for (let sweep = 1; sweep <= maxInboundSweeps; sweep++) {
      clock.advance(hour);
      expect(await sweepFor(event.id), `sweep ${sweep}`).toHaveLength(1);
      await drainQueue();
      expect(await inboundEventState('gateway-b', event.id)).toEqual({ status: 'received' });
    }
    clock.advance(hour);
    expect(await sweepFor(event.id)).toEqual([]);

    expect(await inboundEventState('gateway-b', event.id)).toEqual({
      status: 'failed',
      result: `abandoned: not processed after ${maxInboundSweeps} sweeps`,
    });
    expect(errors).toHaveBeenCalledWith('inbound event abandoned after repeated sweeps', {
      source: 'gateway-b',
      eventId: event.id,
      status: 'received',
      sweeps: maxInboundSweeps,
    });
    // Off the sweeper's index: an abandoned event costs later runs nothing.
    clock.advance(hour);
    const stillListed = await dynamoInboundEventStore.listStalled(clock.now(), 1_000);
    expect(stillListed.map((stalled) => stalled.eventId)).not.toContain(event.id);
    expect(published).toEqual([]);
  });

  it('waits twice as long before each further sweep of the same event', async () => {
    const { event } = subscriptionEvent();
    await receiveWithFailedHandOff(event);
    clock.advance(inboundSweepGraceMs + 1_000);
    // The re-queued messages are lost (never reach a worker): only the sweeper acts.
    const sweptAfter: number[] = [];
    let minutes = 0;
    while (sweptAfter.length < 3) {
      const swept = await sweepFor(event.id);
      queued = [];
      if (swept.length > 0) sweptAfter.push(minutes);
      clock.advance(60_000);
      minutes += 1;
    }
    expect(sweptAfter).toEqual([0, 3, 8]);
  });

  it('keeps an event due when the re-queue itself fails', async () => {
    const { event } = subscriptionEvent();
    await receiveWithFailedHandOff(event);
    clock.advance(inboundSweepGraceMs + 1_000);

    queueDown = true;
    await expect(sweepInboundEvents(sweepDeps)).rejects.toThrow('SQS is unavailable');
    queueDown = false;

    expect(await sweepFor(event.id)).toEqual([{ source: 'gateway-b', eventId: event.id }]);
  });
});
