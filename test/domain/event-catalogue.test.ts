import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { eventTypes } from '../../shared/domain/event-types.js';
import {
  deliverableEventDefinitions,
  eventCatalogue,
  eventDataProblems,
} from '../../shared/domain/webhooks/event-catalogue.js';
import { eventTypeDocument } from '../../shared/http/event-types.js';

const order = { order_id: 'ord_42', status: 'placed', total: 19.99, currency: 'EUR' };

describe('the event catalogue', () => {
  it('has a schema, a description and a fitting example for every subscribable type', () => {
    expect(Object.keys(eventCatalogue).sort()).toEqual([...eventTypes].sort());
    for (const type of eventTypes) {
      expect(eventCatalogue[type].description, type).not.toBe('');
      expect(eventDataProblems(type, eventCatalogue[type].example), type).toEqual([]);
    }
  });

  it('names every malformed order field once, with a sentence about it', () => {
    expect(
      eventDataProblems('order.created', {
        order_id: 42,
        status: '',
        total: 'abc',
        currency: 'eur',
      }),
    ).toEqual([
      { field: 'data.order_id', message: 'must be a string' },
      { field: 'data.status', message: 'must not be empty' },
      { field: 'data.total', message: 'must be a number: a decimal amount such as 19.99' },
      {
        field: 'data.currency',
        message: 'must be an ISO 4217 currency code: three upper-case letters, e.g. EUR',
      },
    ]);
    expect(
      eventDataProblems('order.updated', { ...order, order_id: 'order-42', total: -1 }),
    ).toEqual([
      {
        field: 'data.order_id',
        message: 'must be an order id: ord_ followed by 1 to 64 letters, digits, _ or -',
      },
      { field: 'data.total', message: 'must be 0 or more' },
    ]);
  });

  it('says which required fields are missing', () => {
    expect(eventDataProblems('payment.failed', { payment_id: 'pay_1' })).toEqual([
      { field: 'data.status', message: 'is required' },
      { field: 'data.amount', message: 'is required' },
      { field: 'data.currency', message: 'is required' },
    ]);
  });

  it('allows extra fields but holds declared optional ones to their types', () => {
    expect(eventDataProblems('order.created', { ...order, note: 'leave at the door' })).toEqual([]);
    expect(
      eventDataProblems('payment.successful', {
        payment_id: 'pay_1',
        status: 'successful',
        amount: 5,
        currency: 'USD',
        order_id: 7,
      }),
    ).toEqual([{ field: 'data.order_id', message: 'must be a string' }]);
  });

  it('keeps a delivery or payment status to its type', () => {
    expect(
      eventDataProblems('delivery.picked_up', {
        delivery_id: 'dlv_1',
        order_id: 'ord_1',
        status: 'completed',
      }),
    ).toEqual([{ field: 'data.status', message: 'must be "picked_up" for this event type' }]);
  });
});

describe('the JSON Schema of each type (GET /v1/event-types, OpenAPI webhooks)', () => {
  // With the formats the schemas name (date-time, uri …), checked as a receiver's validator checks them.
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);

  it.each(deliverableEventDefinitions.map((definition) => [definition.type, definition]))(
    '%s: accepts its example and refuses what publication refuses',
    (_type, definition) => {
      const { schema, example } = eventTypeDocument(definition);
      const validate = ajv.compile(schema);
      expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
      expect(validate({ ...example, data: {} })).toBe(false);
      expect(validate({ ...example, data: { ...example.data, extra: 'allowed' } })).toBe(true);
      expect(validate({ ...example, type: 'something.else' })).toBe(false);
      expect(validate({ ...example, created_at: 'yesterday' })).toBe(false);
    },
  );

  it('holds an order to the same rules as publication', () => {
    const validate = ajv.compile(eventTypeDocument(eventCatalogue['order.created']).schema);
    const event = { id: 'evt_1', type: 'order.created', created_at: '2026-01-01T00:00:00Z' };
    expect(validate({ ...event, data: order })).toBe(true);
    for (const bad of [
      { order_id: 'order-42' },
      { total: -1 },
      { total: '19.99' },
      { currency: 'eur' },
    ]) {
      expect(validate({ ...event, data: { ...order, ...bad } }), JSON.stringify(bad)).toBe(false);
    }
  });
});
