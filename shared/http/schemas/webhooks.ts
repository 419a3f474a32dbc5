import * as v from 'valibot';
import { eventTypes } from '../../domain/event-types.js';
import { endpointStatuses, testEventType } from '../../domain/webhooks/model.js';
import { identifier, page, perPage, pointInTime } from './fields.js';

/** Requests of outbound webhook management and event publication (contract.md). */

const eventType = v.picklist(eventTypes, `must be one of: ${eventTypes.join(', ')}`);

const url = v.pipe(
  v.string('must be a string'),
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.url('must be an absolute URL'),
  v.startsWith('https://', 'must use https'),
  v.examples(['https://example.com/webhooks']),
);

const events = v.pipe(
  v.array(eventType, 'must be an array of event types'),
  v.minLength(1, 'must name at least one event type'),
  v.maxLength(eventTypes.length, 'must not repeat an event type'),
  v.check((list) => new Set(list).size === list.length, 'must not repeat an event type'),
);

const description = v.pipe(
  v.string('must be a string'),
  v.maxLength(500, 'must be at most 500 characters'),
);

export const RegisterWebhookRequest = v.strictObject({
  url,
  events,
  description: v.optional(description),
});

const updatable = ['url', 'events', 'description', 'status'] as const;

export const UpdateWebhookRequest = v.pipe(
  v.strictObject({
    url: v.optional(url),
    events: v.optional(events),
    description: v.optional(description),
    status: v.optional(
      v.picklist(endpointStatuses, `must be one of: ${endpointStatuses.join(', ')}`),
    ),
  }),
  v.check(
    (patch) => updatable.some((field) => patch[field] !== undefined),
    `must change at least one of: ${updatable.join(', ')}`,
  ),
);

export const WebhookPathParams = v.object({ id: identifier });

export const DeliveryPathParams = v.object({ id: identifier, delivery_id: identifier });

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

/** page / per_page of a list without filters. */
export const PageQuery = v.strictObject({ page, per_page: perPage });

const createdFilters = {
  created_after: v.optional(pointInTime),
  created_before: v.optional(pointInTime),
};

export const ListWebhooksQuery = v.strictObject({
  page,
  per_page: perPage,
  status: v.optional(
    v.picklist(endpointStatuses, `must be one of: ${endpointStatuses.join(', ')}`),
  ),
  ...createdFilters,
});

const deliverableTypes = [...eventTypes, testEventType] as const;

export const ListDeliveriesQuery = v.strictObject({
  page,
  per_page: perPage,
  status: v.optional(
    v.picklist(deliveryStatuses, `must be one of: ${deliveryStatuses.join(', ')}`),
  ),
  event_type: v.optional(
    v.picklist(deliverableTypes, `must be one of: ${deliverableTypes.join(', ')}`),
  ),
  ...createdFilters,
});

export const RecoverWebhookRequest = v.strictObject({
  since: pointInTime,
  until: v.optional(pointInTime),
});

/** Stripe's rule for the Idempotency-Key header of a publication: 1 to 255 visible ASCII characters. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

export const PublishEventRequest = v.strictObject({
  type: eventType,
  account_id: v.pipe(v.string('must be a string'), v.nonEmpty('is required'), v.maxLength(64)),
  data: v.record(v.pipe(v.string(), v.maxLength(64)), v.unknown(), 'must be an object'),
});
