import * as v from 'valibot';
import type { ErrorDetail } from '../errors.js';
import { type EventType, eventTypes } from '../event-types.js';
import { validationDetails } from '../validation.js';
import { type DeliverableEventType, testEventType } from './model.js';

/**
 * What each outbound event type carries in `data`: one schema per type, checked when an event is
 * published (POST /v1/events, and the gateways' payment events), listed by GET /v1/event-types
 * and turned into the OpenAPI document's `webhooks`. A receiver can rely on every declared field
 * having its type; fields beyond them may appear (extra fields are allowed).
 */

const idPattern = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,64}$`);

const identifierOf = (prefix: string, what: string) => {
  const message = `must be ${what} id: ${prefix}_ followed by 1 to 64 letters, digits, _ or -`;
  // The length the pattern allows, stated as a length too: the document shows it.
  return v.pipe(
    v.string('must be a string'),
    v.maxLength(prefix.length + 65, message),
    v.regex(idPattern(prefix), message),
  );
};

const orderId = identifierOf('ord', 'an order');

/** A decimal amount in the currency's major unit (19.99, not 1999). */
const amount = v.pipe(
  v.number('must be a number: a decimal amount such as 19.99'),
  v.minValue(0, 'must be 0 or more'),
);

const currencyMessage = 'must be an ISO 4217 currency code: three upper-case letters, e.g. EUR';

const currency = v.pipe(
  v.string('must be a string'),
  v.maxLength(3, currencyMessage),
  v.regex(/^[A-Z]{3}$/, currencyMessage),
);

const text = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.nonEmpty('must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
  );

/** A status that names the event's own state: `delivery.picked_up` carries `picked_up`. */
const statusOf = <TStatus extends string>(status: TStatus) =>
  v.literal(status, `must be "${status}" for this event type`);

const orderData = v.looseObject(
  {
    order_id: orderId,
    status: text(64),
    total: amount,
    currency,
  },
  'must be an object',
);

const deliveryData = (status: 'assigned' | 'picked_up' | 'in_transit' | 'completed') =>
  v.looseObject(
    {
      delivery_id: identifierOf('dlv', 'a delivery'),
      order_id: orderId,
      status: statusOf(status),
      estimated_arrival_at: v.optional(
        v.pipe(
          v.string('must be a string'),
          v.maxLength(40, 'must be an RFC 3339 date-time, e.g. 2026-01-15T09:30:00Z'),
          v.isoTimestamp('must be an RFC 3339 date-time, e.g. 2026-01-15T09:30:00Z'),
        ),
      ),
    },
    'must be an object',
  );

const paymentData = (status: 'successful' | 'failed' | 'refunded') =>
  v.looseObject(
    {
      payment_id: identifierOf('pay', 'a payment'),
      order_id: v.optional(orderId),
      status: statusOf(status),
      amount,
      currency,
      gateway: v.optional(
        v.picklist(['gateway_a', 'gateway_b'], 'must be one of: gateway_a, gateway_b'),
      ),
      gateway_payment_id: v.optional(text(255)),
      refund_id: v.optional(text(255)),
      failure_reason: v.optional(text(1000)),
    },
    'must be an object',
  );

export interface EventTypeDefinition {
  type: DeliverableEventType;
  description: string;
  /** The schema of the event's `data`. */
  data: v.GenericSchema;
  /** `data` of an example event (it passes `data`). */
  example: Record<string, unknown>;
}

const order = {
  order_id: 'ord_8f2kq7x1',
  status: 'placed',
  total: 42.5,
  currency: 'EUR',
};
const delivery = (status: string) => ({
  delivery_id: 'dlv_5h1m3c9z',
  order_id: order.order_id,
  status,
  estimated_arrival_at: '2026-01-15T10:05:00Z',
});
const payment = (status: string, extra: Record<string, unknown> = {}) => ({
  payment_id: 'pay_29QQoUBi66xm2f',
  order_id: order.order_id,
  status,
  amount: 42.5,
  currency: 'EUR',
  gateway: 'gateway_a',
  gateway_payment_id: 'pay_29QQoUBi66xm2f',
  ...extra,
});

/** The types a client can subscribe to, in the interface document's order. */
export const eventCatalogue: Record<EventType, EventTypeDefinition> = {
  'order.created': {
    type: 'order.created',
    description: 'A new order has been placed.',
    data: orderData,
    example: order,
  },
  'order.updated': {
    type: 'order.updated',
    description: 'An order’s status has changed; `status` is the new one.',
    data: orderData,
    example: { ...order, status: 'preparing' },
  },
  'order.cancelled': {
    type: 'order.cancelled',
    description: 'An order has been cancelled.',
    data: orderData,
    example: { ...order, status: 'cancelled' },
  },
  'order.completed': {
    type: 'order.completed',
    description: 'An order has been delivered.',
    data: orderData,
    example: { ...order, status: 'completed' },
  },
  'delivery.assigned': {
    type: 'delivery.assigned',
    description: 'A driver has been assigned to deliver an order.',
    data: deliveryData('assigned'),
    example: delivery('assigned'),
  },
  'delivery.picked_up': {
    type: 'delivery.picked_up',
    description: 'The order has been picked up from the merchant.',
    data: deliveryData('picked_up'),
    example: delivery('picked_up'),
  },
  'delivery.in_transit': {
    type: 'delivery.in_transit',
    description: 'The delivery is on its way.',
    data: deliveryData('in_transit'),
    example: delivery('in_transit'),
  },
  'delivery.completed': {
    type: 'delivery.completed',
    description: 'The delivery has been completed.',
    data: deliveryData('completed'),
    example: delivery('completed'),
  },
  'payment.successful': {
    type: 'payment.successful',
    description: 'A payment has been processed successfully; `amount` is what was captured.',
    data: paymentData('successful'),
    example: payment('successful'),
  },
  'payment.failed': {
    type: 'payment.failed',
    description: 'A payment has failed; `failure_reason` says why when the gateway told us.',
    data: paymentData('failed'),
    example: payment('failed', { failure_reason: 'The card was declined.' }),
  },
  'payment.refunded': {
    type: 'payment.refunded',
    description: 'A refund has been processed; `amount` is the amount refunded.',
    data: paymentData('refunded'),
    example: payment('refunded', { amount: 10, refund_id: 'rfnd_FP8QHiV938haTz' }),
  },
};

/** The event of `POST /v1/webhooks/{id}/test`: sent on request to one endpoint, never subscribed. */
export const testEventDefinition: EventTypeDefinition = {
  type: testEventType,
  description:
    'A test event, sent only to the endpoint named in POST /v1/webhooks/{id}/test, whatever its subscriptions.',
  data: v.looseObject({ webhook_id: text(64), message: text(200) }, 'must be an object'),
  example: {
    webhook_id: 'whk_q3zk2m7d4t6y1b5n8c2x',
    message: 'This is a test event from the webhook service.',
  },
};

/** Every type, in the catalogue's order: the subscribable ones, then the test event. */
export const deliverableEventDefinitions: EventTypeDefinition[] = [
  ...eventTypes.map((type) => eventCatalogue[type]),
  testEventDefinition,
];

/** An example event object of a type, as a receiver gets it. */
export const exampleEvent = (definition: EventTypeDefinition) => ({
  id: 'evt_7k2m9q4x1z3c5v8b6n0a',
  type: definition.type,
  created_at: '2026-01-15T09:30:00.000Z',
  data: definition.example,
});

/**
 * What is wrong with an event's data for its type: one detail per bad field (`data.total`),
 * none when it fits.
 */
export function eventDataProblems(type: EventType, data: unknown): ErrorDetail[] {
  const result = v.safeParse(eventCatalogue[type].data, data, { abortPipeEarly: true });
  return result.success ? [] : validationDetails(result.issues, { whole: 'data', prefix: 'data' });
}
