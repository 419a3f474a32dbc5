import type { EventType } from '../event-types.js';
import { eventDataProblems } from '../webhooks/event-catalogue.js';
import { isObject, type JsonObject } from './json.js';
import type { InboundSource } from './model.js';

/** The outbound event a gateway payment event becomes, for the account named in its metadata. */
export interface PaymentEvent {
  type: Extract<EventType, 'payment.successful' | 'payment.failed' | 'payment.refunded'>;
  accountId: string;
  data: {
    /** `pay_…`: the gateway's own id when it has that form (gateway A), else it with `pay_` before it. */
    payment_id: string;
    /** The payment's id at the gateway, as the client knows it there. */
    gateway_payment_id: string;
    /** Decimal amount in the currency's major unit (12.5, not 1250). */
    amount: number;
    /** ISO 4217, upper case. */
    currency: string;
    status: 'successful' | 'failed' | 'refunded';
    gateway: 'gateway_a' | 'gateway_b';
    refund_id?: string;
    order_id?: string;
    failure_reason?: string;
  };
}

export type PaymentMapping =
  | { kind: 'payment'; event: PaymentEvent }
  /** A payment event that cannot be attributed or read: nothing is published, and why. */
  | { kind: 'unusable'; reason: string }
  /** Not a payment event. */
  | { kind: 'other' };

/** Currencies without minor units, and with three decimals (as both gateways count them). */
const zeroDecimal = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const threeDecimal = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** Gateways count in minor units (paise, cents); outbound events carry decimal amounts. */
export function decimalAmount(minorUnits: number, currency: string): number {
  const decimals = zeroDecimal.has(currency) ? 0 : threeDecimal.has(currency) ? 3 : 2;
  return Number((minorUnits / 10 ** decimals).toFixed(decimals));
}

const object = (value: unknown): JsonObject => (isObject(value) ? value : {});
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const integer = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

interface PaymentFields {
  accountId?: string;
  paymentId?: string;
  amount?: number;
  currency?: string;
  refundId?: string;
  orderId?: string;
  failureReason?: string;
}

function complete(
  type: PaymentEvent['type'],
  gateway: PaymentEvent['data']['gateway'],
  fields: PaymentFields,
): PaymentMapping {
  const { accountId, paymentId, amount, currency } = fields;
  if (accountId === undefined) return { kind: 'unusable', reason: 'no account_id in the metadata' };
  if (paymentId === undefined || amount === undefined || currency === undefined) {
    return { kind: 'unusable', reason: 'payment id, amount or currency missing' };
  }
  const upper = currency.toUpperCase();
  const status =
    type === 'payment.successful'
      ? 'successful'
      : type === 'payment.failed'
        ? 'failed'
        : 'refunded';
  const data: PaymentEvent['data'] = {
    payment_id: paymentId.startsWith('pay_') ? paymentId : `pay_${paymentId}`,
    gateway_payment_id: paymentId,
    amount: decimalAmount(amount, upper),
    currency: upper,
    status,
    gateway,
    ...(fields.refundId === undefined ? {} : { refund_id: fields.refundId }),
    ...(fields.orderId === undefined ? {} : { order_id: fields.orderId }),
    ...(fields.failureReason === undefined ? {} : { failure_reason: fields.failureReason }),
  };
  // The translation answers to the same schema as any publisher: an event that would not fit
  // (an order id in the metadata that is not `ord_…`) is recorded as unusable, with why.
  const problems = eventDataProblems(type, data);
  if (problems.length > 0) {
    return {
      kind: 'unusable',
      reason: `the ${type} data does not fit its schema: ${problems
        .map((problem) => `${problem.field} ${problem.message}`)
        .join('; ')}`,
    };
  }
  return { kind: 'payment', event: { type, accountId, data } };
}

const gatewayATypes: Record<string, PaymentEvent['type']> = {
  'payment.captured': 'payment.successful',
  'payment.failed': 'payment.failed',
  'refund.processed': 'payment.refunded',
};

/**
 * Gateway A: `payload.payment.entity` (or `payload.refund.entity`) with amounts in minor units
 * and the account in `notes.account_id`.
 */
function fromGatewayA(type: string, body: JsonObject): PaymentMapping {
  const outbound = gatewayATypes[type];
  if (outbound === undefined) return { kind: 'other' };
  const payload = object(body.payload);
  const payment = object(object(payload.payment).entity);
  const refund = object(object(payload.refund).entity);
  const source = outbound === 'payment.refunded' ? refund : payment;
  const notes = object(source.notes);
  return complete(outbound, 'gateway_a', {
    // A refund's own notes are often empty; the payment it refunds names the account then.
    accountId: text(notes.account_id) ?? text(object(payment.notes).account_id),
    paymentId:
      outbound === 'payment.refunded'
        ? (text(refund.payment_id) ?? text(payment.id))
        : text(payment.id),
    amount: integer(source.amount),
    currency: text(source.currency),
    refundId: outbound === 'payment.refunded' ? text(refund.id) : undefined,
    orderId: text(notes.order_id),
    failureReason: outbound === 'payment.failed' ? text(payment.error_description) : undefined,
  });
}

const gatewayBTypes: Record<string, PaymentEvent['type']> = {
  'payment_intent.succeeded': 'payment.successful',
  'payment_intent.payment_failed': 'payment.failed',
  'charge.refunded': 'payment.refunded',
};

/** Gateway B: `data.object` is a PaymentIntent or a Charge, the account in `metadata.account_id`. */
function fromGatewayB(type: string, body: JsonObject): PaymentMapping {
  const outbound = gatewayBTypes[type];
  if (outbound === undefined) return { kind: 'other' };
  const source = object(object(body.data).object);
  const metadata = object(source.metadata);
  const refunded = outbound === 'payment.refunded';
  return complete(outbound, 'gateway_b', {
    accountId: text(metadata.account_id),
    // A refund event carries the charge; the payment is its PaymentIntent when there is one.
    paymentId: refunded ? (text(source.payment_intent) ?? text(source.id)) : text(source.id),
    amount: refunded
      ? integer(source.amount_refunded)
      : outbound === 'payment.successful'
        ? integer(source.amount_received) || integer(source.amount)
        : integer(source.amount),
    currency: text(source.currency),
    orderId: text(metadata.order_id),
    failureReason: refunded ? undefined : text(object(source.last_payment_error).message),
  });
}

/** The outbound payment event of a gateway event, if it is one (a pure mapping). */
export function paymentEventOf(
  source: InboundSource,
  type: string,
  body: JsonObject,
): PaymentMapping {
  if (source === 'gateway-a') return fromGatewayA(type, body);
  if (source === 'gateway-b') return fromGatewayB(type, body);
  return { kind: 'other' };
}
