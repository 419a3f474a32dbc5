import { describe, expect, it } from 'vitest';
import { messagingContentOf } from '../../shared/domain/inbound/messaging-events.js';
import { decimalAmount, paymentEventOf } from '../../shared/domain/inbound/payment-events.js';
import { gatewayARoute, gatewayBRoute } from '../../shared/domain/inbound/sources.js';
import { subscriptionUpdateOf } from '../../shared/domain/inbound/subscription-events.js';
import { messagingNotification } from './inbound-support.js';

describe('gateway B routing', () => {
  it.each([
    ['customer.subscription.created', 'subscription'],
    ['customer.subscription.deleted', 'subscription'],
    ['invoice.paid', 'subscription'],
    ['invoice.payment_failed', 'subscription'],
    ['checkout.session.completed', 'subscription'],
    ['checkout.session.expired', 'general'],
    ['payment_intent.succeeded', 'general'],
    ['customer.created', 'general'],
    ['invoiceitem.created', 'general'],
  ])('sends %s to %s handling', (type, route) => {
    expect(gatewayBRoute(type)).toBe(route);
  });

  it('sends gateway A subscription.* events to subscription handling', () => {
    expect(gatewayARoute('subscription.charged')).toBe('subscription');
    expect(gatewayARoute('payment.captured')).toBe('general');
  });
});

describe('decimal amounts', () => {
  it('divides by the currency’s minor unit', () => {
    expect(decimalAmount(1250, 'USD')).toBe(12.5);
    expect(decimalAmount(100, 'JPY')).toBe(100);
    expect(decimalAmount(1500, 'KWD')).toBe(1.5);
    expect(decimalAmount(1, 'INR')).toBe(0.01);
  });
});

describe('payment events', () => {
  it('maps a gateway A refund to payment.refunded, taking the account from the payment when the refund has no notes', () => {
    const body = {
      event: 'refund.processed',
      payload: {
        refund: {
          entity: { id: 'rfnd_1', payment_id: 'pay_1', amount: 10000, currency: 'INR', notes: [] },
        },
        payment: {
          entity: { id: 'pay_1', amount: 20000, currency: 'INR', notes: { account_id: 'usr_1' } },
        },
      },
    };
    expect(paymentEventOf('gateway-a', 'refund.processed', body)).toEqual({
      kind: 'payment',
      event: {
        type: 'payment.refunded',
        accountId: 'usr_1',
        data: {
          payment_id: 'pay_1',
          gateway_payment_id: 'pay_1',
          amount: 100,
          currency: 'INR',
          status: 'refunded',
          gateway: 'gateway_a',
          refund_id: 'rfnd_1',
        },
      },
    });
  });

  it('maps a gateway A failed payment with its reason', () => {
    const body = {
      payload: {
        payment: {
          entity: {
            id: 'pay_2',
            amount: 500,
            currency: 'INR',
            notes: { account_id: 'usr_2' },
            error_description: 'Card declined',
          },
        },
      },
    };
    expect(paymentEventOf('gateway-a', 'payment.failed', body)).toMatchObject({
      kind: 'payment',
      event: { type: 'payment.failed', data: { amount: 5, failure_reason: 'Card declined' } },
    });
  });

  it('publishes nothing for a payment without an account in its metadata', () => {
    const body = { data: { object: { id: 'pi_1', amount: 100, currency: 'usd', metadata: {} } } };
    expect(paymentEventOf('gateway-b', 'payment_intent.succeeded', body)).toEqual({
      kind: 'unusable',
      reason: 'no account_id in the metadata',
    });
  });

  it('gives a gateway B payment a pay_ id and keeps the gateway’s own beside it', () => {
    const body = {
      data: {
        object: {
          id: 'pi_3MtwBw',
          amount: 1999,
          amount_received: 1999,
          currency: 'eur',
          metadata: { account_id: 'usr_3', order_id: 'ord_7' },
        },
      },
    };
    expect(paymentEventOf('gateway-b', 'payment_intent.succeeded', body)).toMatchObject({
      kind: 'payment',
      event: {
        data: { payment_id: 'pay_pi_3MtwBw', gateway_payment_id: 'pi_3MtwBw', order_id: 'ord_7' },
      },
    });
  });

  it('publishes nothing, and says why, when the translation would not fit the payment schema', () => {
    const body = {
      data: {
        object: {
          id: 'pi_4',
          amount: 100,
          currency: 'usd',
          metadata: { account_id: 'usr_4', order_id: '12345' },
        },
      },
    };
    expect(paymentEventOf('gateway-b', 'payment_intent.succeeded', body)).toEqual({
      kind: 'unusable',
      reason:
        'the payment.successful data does not fit its schema: data.order_id must be an order id: ord_ followed by 1 to 64 letters, digits, _ or -',
    });
  });

  it('leaves other event types alone', () => {
    expect(paymentEventOf('gateway-b', 'customer.created', {})).toEqual({ kind: 'other' });
    expect(paymentEventOf('gateway-a', 'order.paid', {})).toEqual({ kind: 'other' });
  });
});

describe('subscription updates', () => {
  it('marks a deleted gateway B subscription canceled', () => {
    const body = {
      created: 1767225600,
      data: { object: { id: 'sub_9', status: 'active', metadata: { account_id: 'usr_9' } } },
    };
    expect(
      subscriptionUpdateOf('gateway-b', 'evt_9', 'customer.subscription.deleted', body),
    ).toMatchObject({
      kind: 'update',
      update: {
        accountId: 'usr_9',
        subscriptionId: 'sub_9',
        eventCreatedAt: 1767225600,
        state: { status: 'canceled' },
      },
    });
  });

  it('keeps a gateway A subscription’s plan and period end', () => {
    const body = {
      created_at: 1767225600,
      payload: {
        subscription: {
          entity: {
            id: 'sub_A',
            status: 'active',
            plan_id: 'plan_A',
            current_end: 1769904000,
            notes: { account_id: 'usr_A' },
          },
        },
      },
    };
    expect(
      subscriptionUpdateOf('gateway-a', 'evt_A', 'subscription.activated', body),
    ).toMatchObject({
      kind: 'update',
      update: {
        state: { status: 'active', plan: 'plan_A', currentPeriodEnd: '2026-02-01T00:00:00.000Z' },
      },
    });
  });

  it('ignores a one-off checkout and an event without an account', () => {
    expect(
      subscriptionUpdateOf('gateway-b', 'e', 'checkout.session.completed', {
        data: { object: { mode: 'payment' } },
      }),
    ).toEqual({ kind: 'unusable', reason: 'not a subscription checkout' });
    expect(
      subscriptionUpdateOf('gateway-b', 'e', 'customer.subscription.updated', {
        data: { object: { id: 'sub_1' } },
      }),
    ).toEqual({ kind: 'unusable', reason: 'no account_id in the metadata' });
  });
});

describe('messaging content', () => {
  it('extracts messages and statuses and skips entries without ids', () => {
    const body = messagingNotification('wamid.in', 'wamid.out', 1750263773);
    const content = messagingContentOf(body);
    expect(content.messages).toEqual([
      {
        id: 'wamid.in',
        from: '16505551234',
        type: 'text',
        text: 'Does it come in another colour?',
        sentAt: 1750263713,
        phoneNumberId: '106540352242922',
      },
    ]);
    expect(content.statuses).toEqual([
      {
        messageId: 'wamid.out',
        status: 'delivered',
        recipientId: '16505551234',
        at: 1750263773,
        errorTitle: undefined,
      },
    ]);
    expect(
      messagingContentOf({ entry: [{ changes: [{ value: { messages: [{ type: 'text' }] } }] }] }),
    ).toEqual({
      messages: [],
      statuses: [],
    });
  });
});
