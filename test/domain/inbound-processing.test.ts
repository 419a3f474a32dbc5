import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoInboundAttemptLog } from '../../shared/adapters/dynamo-inbound-attempts.js';
import {
  dynamoInboundEventStore,
  inboundEventState,
} from '../../shared/adapters/dynamo-inbound-events.js';
import {
  dynamoMessagingRecords,
  findMessagingRecord,
} from '../../shared/adapters/dynamo-messaging-records.js';
import {
  dynamoSubscriptionStore,
  findSubscription,
} from '../../shared/adapters/dynamo-subscriptions.js';
import { keys } from '../../shared/adapters/keys.js';
import { ManualClock } from '../../shared/domain/clock.js';
import type { InboundCall, ProcessingRequest } from '../../shared/domain/inbound/model.js';
import type {
  OutboundEvent,
  ProcessDependencies,
  ReceiveDependencies,
} from '../../shared/domain/inbound/ports.js';
import { processEvent } from '../../shared/domain/inbound/process-event.js';
import { receiveEvent, recordUnproven } from '../../shared/domain/inbound/receive-event.js';
import { gatewayA, gatewayB, messaging } from '../../shared/domain/inbound/sources.js';
import { UnprovenSample } from '../../shared/domain/inbound/unproven-sample.js';
import { useFreshTable } from '../support/table.js';
import {
  gatewayAPaymentEvent,
  gatewayASecret,
  gatewayBEvent,
  gatewayBHeader,
  gatewayBSecret,
  hexHmac,
  inboundCall,
  messagingNotification,
  messagingSecret,
} from './inbound-support.js';

const clock = new ManualClock(Date.now());
let queued: ProcessingRequest[];
let published: OutboundEvent[];
let failNextEnqueue: boolean;
let failNextPublish: boolean;

const receiveDeps: ReceiveDependencies = {
  events: dynamoInboundEventStore,
  attempts: dynamoInboundAttemptLog,
  queue: {
    async enqueue(request) {
      if (failNextEnqueue) {
        failNextEnqueue = false;
        throw new Error('SQS is unavailable');
      }
      queued.push(request);
    },
    async enqueueMany(requests) {
      queued.push(...requests);
    },
  },
  clock,
  newId: randomUUID,
  unprovenSample: new UnprovenSample(100),
};

const processDeps: ProcessDependencies = {
  events: dynamoInboundEventStore,
  subscriptions: dynamoSubscriptionStore,
  messaging: dynamoMessagingRecords,
  publish: async (event) => {
    if (failNextPublish) {
      failNextPublish = false;
      throw new Error('DynamoDB throttled the publication');
    }
    published.push(event);
  },
  clock,
};

/** Processes everything queued so far, as the worker would, all at once. */
const drainQueue = () =>
  Promise.all(queued.splice(0).map((request) => processEvent(processDeps, request)));

const signedB = (event: object, body = JSON.stringify(event)): InboundCall =>
  inboundCall(body, { 'stripe-signature': gatewayBHeader(body, clock.now()) }, clock.now());

const receiveB = (call: InboundCall) => receiveEvent(receiveDeps, gatewayB, [gatewayBSecret], call);

const accountId = () => `usr_${randomUUID()}`;

beforeAll(async () => {
  await useFreshTable();
});

beforeEach(() => {
  queued = [];
  published = [];
  failNextEnqueue = false;
  failNextPublish = false;
});

describe('receiving and deduplicating', () => {
  it('processes a payment event once and acknowledges its replay as a duplicate', async () => {
    const account = accountId();
    const event = gatewayBEvent('payment_intent.succeeded', {
      id: 'pi_3Q1',
      object: 'payment_intent',
      amount: 1250,
      amount_received: 1250,
      currency: 'usd',
      status: 'succeeded',
      metadata: { account_id: account, order_id: 'ord_42' },
    });

    const first = await receiveB(signedB(event));
    await drainQueue();
    const replay = await receiveB(signedB(event));
    await drainQueue();

    expect(first).toEqual({
      received: true,
      eventId: event.id,
      duplicate: false,
      route: 'general',
    });
    expect(replay).toEqual({
      received: true,
      eventId: event.id,
      duplicate: true,
      route: 'general',
    });
    expect(published).toEqual([
      {
        type: 'payment.successful',
        accountId: account,
        data: {
          payment_id: 'pay_pi_3Q1',
          gateway_payment_id: 'pi_3Q1',
          amount: 12.5,
          currency: 'USD',
          status: 'successful',
          gateway: 'gateway_b',
          order_id: 'ord_42',
        },
        idempotencyKey: `gateway-b:${event.id}`,
      },
    ]);
    expect(await inboundEventState('gateway-b', event.id)).toEqual({
      status: 'processed',
      result: 'published payment.successful',
    });
  });

  it('lets only one of two copies arriving at the same moment be processed', async () => {
    const event = gatewayBEvent('payment_intent.payment_failed', {
      id: 'pi_race',
      amount: 900,
      currency: 'eur',
      metadata: { account_id: accountId() },
      last_payment_error: { message: 'Your card was declined.' },
    });

    const acks = await Promise.all([receiveB(signedB(event)), receiveB(signedB(event))]);
    const outcomes = await drainQueue();

    expect(acks.map((ack) => ack.duplicate).sort()).toEqual([false, true]);
    expect(outcomes.filter((outcome) => outcome === 'processed')).toHaveLength(1);
    expect(published).toHaveLength(1);
    expect(published[0]?.data).toMatchObject({
      status: 'failed',
      amount: 9,
      failure_reason: 'Your card was declined.',
    });
  });

  it('queues a duplicate again when the first hand-off to processing failed', async () => {
    const event = gatewayBEvent('charge.refunded', {
      id: 'ch_1',
      object: 'charge',
      payment_intent: 'pi_refunded',
      amount: 5000,
      amount_refunded: 2000,
      currency: 'usd',
      metadata: { account_id: accountId() },
    });
    failNextEnqueue = true;

    await expect(receiveB(signedB(event))).rejects.toThrow('SQS is unavailable');
    clock.advance(1_000);
    const retry = await receiveB(signedB(event));
    await drainQueue();

    expect(retry.duplicate).toBe(true);
    expect(published.map((p) => [p.type, p.data.payment_id, p.data.amount])).toEqual([
      ['payment.refunded', 'pay_pi_refunded', 20],
    ]);
    const { attempts } = await dynamoInboundAttemptLog.listBySource('gateway-b', { limit: 10 });
    expect(
      attempts.filter((a) => a.eventId === event.id).map((a) => [a.outcome, a.statusCode]),
    ).toEqual([
      ['duplicate', 200],
      ['failed', 500],
    ]);
  });

  it('retries processing after a transient failure, and publishes once', async () => {
    const event = gatewayBEvent('payment_intent.succeeded', {
      id: 'pi_transient',
      amount: 100,
      currency: 'jpy',
      metadata: { account_id: accountId() },
    });
    await receiveB(signedB(event));
    const [request] = queued.splice(0);
    failNextPublish = true;

    await expect(processEvent(processDeps, request!)).rejects.toThrow('throttled');
    expect(await inboundEventState('gateway-b', event.id)).toEqual({ status: 'received' });
    expect(await processEvent(processDeps, request!)).toBe('processed');
    expect(await processEvent(processDeps, request!)).toBe('skipped');

    expect(published.map((p) => p.data.amount)).toEqual([100]);
  });

  it('refuses a bad signature, a non-JSON body and an event without an id', async () => {
    const event = gatewayBEvent('invoice.paid', {});
    const body = JSON.stringify(event);
    const tampered = inboundCall(
      body.replace('invoice.paid', 'invoice.void'),
      { 'stripe-signature': gatewayBHeader(body, clock.now()) },
      clock.now(),
    );
    await expect(receiveB(tampered)).rejects.toMatchObject({ code: 'invalid_signature' });
    await expect(receiveB(signedB({}, 'not json {'))).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(receiveB(signedB({}, '[1,2]'))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(receiveB(signedB({ type: 'invoice.paid' }))).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'id', message: expect.any(String) }],
    });
    expect(queued).toEqual([]);
  });
});

describe('subscription handling', () => {
  it('keeps the subscription record of the account named in the metadata', async () => {
    const account = accountId();
    const created = Math.floor(clock.now() / 1000);
    const updated = gatewayBEvent(
      'customer.subscription.updated',
      {
        id: 'sub_1',
        object: 'subscription',
        status: 'active',
        metadata: { account_id: account },
        items: { data: [{ price: { id: 'price_pro_monthly' }, current_period_end: 1767225600 }] },
      },
      created,
    );

    const ack = await receiveB(signedB(updated));
    await drainQueue();

    expect(ack.route).toBe('subscription');
    expect(published).toEqual([]);
    expect(await findSubscription(account, 'sub_1')).toMatchObject({
      account_id: account,
      status: 'active',
      plan: 'price_pro_monthly',
      current_period_end: '2026-01-01T00:00:00.000Z',
    });
  });

  it('does not let an older event overwrite newer state (gateways deliver out of order)', async () => {
    const account = accountId();
    const now = Math.floor(clock.now() / 1000);
    const subscription = (status: string) => ({
      id: 'sub_order',
      status,
      metadata: { account_id: account },
      plan: { id: 'plan_basic' },
      current_period_end: now + 86_400,
    });
    await receiveB(
      signedB(gatewayBEvent('customer.subscription.updated', subscription('past_due'), now)),
    );
    await receiveB(
      signedB(gatewayBEvent('customer.subscription.created', subscription('incomplete'), now - 60)),
    );
    await drainQueue();

    expect((await findSubscription(account, 'sub_order'))?.status).toBe('past_due');
  });

  it('records the latest invoice and links a subscription checkout', async () => {
    const account = accountId();
    await receiveB(
      signedB(
        gatewayBEvent('checkout.session.completed', {
          id: 'cs_1',
          mode: 'subscription',
          subscription: 'sub_checkout',
          payment_status: 'paid',
          metadata: { account_id: account },
        }),
      ),
    );
    await receiveB(
      signedB(
        gatewayBEvent('invoice.paid', {
          id: 'in_1',
          status: 'paid',
          parent: {
            subscription_details: {
              subscription: 'sub_checkout',
              metadata: { account_id: account },
            },
          },
        }),
      ),
    );
    await drainQueue();

    expect(await findSubscription(account, 'sub_checkout')).toMatchObject({
      status: 'active',
      checkout_session_id: 'cs_1',
      latest_invoice_id: 'in_1',
      latest_invoice_status: 'paid',
    });
  });
});

describe('gateway A', () => {
  const signedA = (body: string, headers: Record<string, string> = {}) =>
    inboundCall(
      body,
      { 'x-razorpay-signature': hexHmac(gatewayASecret, body), ...headers },
      clock.now(),
    );
  const receiveA = (call: InboundCall) =>
    receiveEvent(receiveDeps, gatewayA, [gatewayASecret], call);

  it('publishes a captured payment with a decimal amount for the account in its notes', async () => {
    const account = accountId();
    const body = JSON.stringify(
      gatewayAPaymentEvent('payment.captured', {
        id: 'pay_29QQoUBi66xm2f',
        amount: 49950,
        currency: 'INR',
        status: 'captured',
        notes: { account_id: account },
      }),
    );

    const ack = await receiveA(signedA(body, { 'x-razorpay-event-id': 'evt_a_1' }));
    await drainQueue();

    expect(ack).toEqual({
      received: true,
      eventId: `sha256:${createHash('sha256').update(body).digest('hex')}`,
      duplicate: false,
      route: 'general',
    });
    expect(published).toEqual([
      expect.objectContaining({
        type: 'payment.successful',
        accountId: account,
        data: {
          payment_id: 'pay_29QQoUBi66xm2f',
          gateway_payment_id: 'pay_29QQoUBi66xm2f',
          amount: 499.5,
          currency: 'INR',
          status: 'successful',
          gateway: 'gateway_a',
        },
      }),
    ]);
  });

  it('dedupes by the body hash, whatever event id header comes with it', async () => {
    const body = JSON.stringify(gatewayAPaymentEvent('order.paid', { id: 'pay_x' }));
    const first = await receiveA(signedA(body));
    const second = await receiveA(signedA(body, { 'x-gateway-a-event-id': 'evt_claimed' }));
    expect(first.eventId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(second).toEqual({ ...first, duplicate: true });
  });
});

describe('messaging notifications', () => {
  it('records inbound messages and delivery statuses', async () => {
    const messageId = `wamid.${randomUUID()}`;
    const sentId = `wamid.${randomUUID()}`;
    const body = JSON.stringify(messagingNotification(messageId, sentId));
    const call = inboundCall(
      body,
      { 'x-hub-signature-256': `sha256=${hexHmac(messagingSecret, body)}` },
      clock.now(),
    );

    const ack = await receiveEvent(receiveDeps, messaging, [messagingSecret], call);
    await drainQueue();

    expect(ack.duplicate).toBe(false);
    expect(await findMessagingRecord(keys.messagingMessage(messageId))).toMatchObject({
      from: '16505551234',
      type: 'text',
      text: 'Does it come in another colour?',
    });
    expect(await findMessagingRecord(keys.messagingStatus(sentId, 'delivered'))).toMatchObject({
      status: 'delivered',
      recipient_id: '16505551234',
    });
  });
});

describe('the audit trail', () => {
  it('lists a source’s attempts newest first, refusals included, page by page', async () => {
    const start = clock.now();
    const refused = inboundCall('x', {}, start + 1_000);
    await recordUnproven(receiveDeps, 'messaging', refused, 'invalid_signature');
    const body = JSON.stringify(
      messagingNotification(`wamid.${randomUUID()}`, `wamid.${randomUUID()}`),
    );
    await receiveEvent(
      receiveDeps,
      messaging,
      [messagingSecret],
      inboundCall(
        body,
        { 'x-hub-signature-256': `sha256=${hexHmac(messagingSecret, body)}` },
        start + 2_000,
      ),
    );

    const firstPage = await dynamoInboundAttemptLog.listBySource('messaging', { limit: 1 });
    const secondPage = await dynamoInboundAttemptLog.listBySource('messaging', {
      limit: 1,
      before: firstPage.next,
    });

    expect(firstPage.attempts).toEqual([
      expect.objectContaining({
        outcome: 'accepted',
        statusCode: 200,
        eventId: expect.stringMatching(/^sha256:/),
        receivedAt: start + 2_000,
      }),
    ]);
    expect(secondPage.attempts).toEqual([
      expect.objectContaining({
        outcome: 'invalid_signature',
        statusCode: 401,
        errorCode: 'invalid_signature',
        requestId: refused.requestId,
      }),
    ]);
  });
});
