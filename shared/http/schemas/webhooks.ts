import * as v from 'valibot';
import { eventTypes } from '../../domain/event-types.js';
import { endpointStatuses, testEventType } from '../../domain/webhooks/model.js';
import { identifier, page, perPage, pointInTime } from './fields.js';
import { deliveryStatuses } from './vocabulary.js';

/** Requests of outbound webhook management and event publication (contract.md). */

const eventType = /* @__PURE__ */ v.picklist(
  eventTypes,
  `must be one of: ${/* @__PURE__ */ eventTypes.join(', ')}`,
);

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
);

export const RegisterWebhookRequest = /* @__PURE__ */ v.strictObject({
  url,
  events,
  description: /* @__PURE__ */ v.optional(description),
});

const updatable = ['url', 'events', 'description', 'status'] as const;

export const UpdateWebhookRequest = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.strictObject({
    url: /* @__PURE__ */ v.optional(url),
    events: /* @__PURE__ */ v.optional(events),
    description: /* @__PURE__ */ v.optional(description),
    status: /* @__PURE__ */ v.optional(
      /* @__PURE__ */ v.picklist(
        endpointStatuses,
        `must be one of: ${/* @__PURE__ */ endpointStatuses.join(', ')}`,
      ),
    ),
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

/** page / per_page of a list without filters. */
export const PageQuery = /* @__PURE__ */ v.strictObject({ page, per_page: perPage });

const createdFilters = {
  created_after: /* @__PURE__ */ v.optional(pointInTime),
  created_before: /* @__PURE__ */ v.optional(pointInTime),
};

export const ListWebhooksQuery = /* @__PURE__ */ v.strictObject({
  page,
  per_page: perPage,
  status: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.picklist(
      endpointStatuses,
      `must be one of: ${/* @__PURE__ */ endpointStatuses.join(', ')}`,
    ),
  ),
  ...createdFilters,
});

const deliverableTypes = [...eventTypes, testEventType] as const;

export const ListDeliveriesQuery = /* @__PURE__ */ v.strictObject({
  page,
  per_page: perPage,
  status: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.picklist(
      deliveryStatuses,
      `must be one of: ${/* @__PURE__ */ deliveryStatuses.join(', ')}`,
    ),
  ),
  event_type: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.picklist(
      deliverableTypes,
      `must be one of: ${/* @__PURE__ */ deliverableTypes.join(', ')}`,
    ),
  ),
  ...createdFilters,
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
