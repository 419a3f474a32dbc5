import * as v from 'valibot';
import { eventTypes } from '../../domain/event-types.js';
import { endpointStatuses, testEventType } from '../../domain/webhooks/model.js';
import { identifier, listQuery, oneOf, pointInTime } from './fields.js';
import { deliveryStatuses, eventTypeStatuses } from './vocabulary.js';

/** Requests of outbound webhook management and event publication (docs/webhooks.md, "API"). */

const eventType = /* @__PURE__ */ oneOf(eventTypes);

const url = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.maxLength(2048, 'must be at most 2048 characters'),
  /* @__PURE__ */ v.url('must be an absolute URL'),
  /* @__PURE__ */ v.startsWith('https://', 'must use https'),
  /* @__PURE__ */ v.examples(['https://example.com/webhooks']),
);

const events = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.array(eventType, 'must be an array of event types'),
  /* @__PURE__ */ v.minLength(1, 'must name at least one event type'),
  /* @__PURE__ */ v.maxLength(eventTypes.length, 'must not repeat an event type'),
  /* @__PURE__ */ v.check(
    (list) => new Set(list).size === list.length,
    'must not repeat an event type',
  ),
);

const description = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.maxLength(500, 'must be at most 500 characters'),
  /* @__PURE__ */ v.examples(['Order updates for the warehouse app']),
);

/**
 * Deliveries a second the endpoint takes at most. The ceiling is what one endpoint's load item
 * takes (two writes per attempt on one partition: docs/webhooks.md, "Isolation").
 */
export const maxRateLimit = 500;

const rateLimit = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.number('must be a number of deliveries per second'),
  /* @__PURE__ */ v.integer('must be a whole number of deliveries per second'),
  /* @__PURE__ */ v.minValue(1, 'must be at least 1 delivery per second'),
  /* @__PURE__ */ v.maxValue(maxRateLimit, `must be at most ${maxRateLimit} deliveries per second`),
);

export const RegisterWebhookRequest = /* @__PURE__ */ v.strictObject({
  url,
  events,
  description: /* @__PURE__ */ v.optional(description),
  rate_limit: /* @__PURE__ */ v.optional(rateLimit),
});

const updatable = ['url', 'events', 'description', 'status', 'rate_limit'] as const;

export const UpdateWebhookRequest = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.strictObject({
    url: /* @__PURE__ */ v.optional(url),
    events: /* @__PURE__ */ v.optional(events),
    description: /* @__PURE__ */ v.optional(description),
    status: /* @__PURE__ */ v.optional(/* @__PURE__ */ oneOf(endpointStatuses)),
    /** null takes the limit off. */
    rate_limit: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.nullable(rateLimit)),
  }),
  /* @__PURE__ */ v.check(
    (patch) => updatable.some((field) => patch[field] !== undefined),
    `must change at least one of: ${/* @__PURE__ */ updatable.join(', ')}`,
  ),
);

export const WebhookPathParams = /* @__PURE__ */ v.object({ id: identifier });

export const DeliveryPathParams = /* @__PURE__ */ v.object({
  id: identifier,
  delivery_id: identifier,
});

/**
 * The event catalogue's: its types are all `active` and have no creation time, so the filters
 * are checked as on every list and keep every type (docs/webhooks.md).
 */
export const ListEventTypesQuery = /* @__PURE__ */ listQuery(eventTypeStatuses, {});

export const ListWebhooksQuery = /* @__PURE__ */ listQuery(endpointStatuses, {});

const deliverableTypes = [...eventTypes, testEventType] as const;

export const ListDeliveriesQuery = /* @__PURE__ */ listQuery(deliveryStatuses, {
  event_type: /* @__PURE__ */ v.optional(/* @__PURE__ */ oneOf(deliverableTypes)),
});

/** `event_type`: send the catalogue's example of this subscribed type instead of `webhook.test`. */
export const TestEventQuery = /* @__PURE__ */ v.strictObject({
  event_type: /* @__PURE__ */ v.optional(eventType),
});

export const RecoverWebhookRequest = /* @__PURE__ */ v.strictObject({
  since: pointInTime,
  until: /* @__PURE__ */ v.optional(pointInTime),
});

/** Stripe's rule for the Idempotency-Key header of a publication: 1 to 255 visible ASCII characters. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

export const PublishEventRequest = /* @__PURE__ */ v.strictObject({
  type: eventType,
  account_id: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.string('must be a string'),
    /* @__PURE__ */ v.nonEmpty('is required'),
    /* @__PURE__ */ v.maxLength(64),
  ),
  data: /* @__PURE__ */ v.record(
    /* @__PURE__ */ v.pipe(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.maxLength(64)),
    /* @__PURE__ */ v.unknown(),
    'must be an object',
  ),
});
