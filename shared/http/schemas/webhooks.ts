import * as v from 'valibot';
import { eventTypes } from '../../domain/event-types.js';
import { identifier, page, perPage } from './fields.js';

/** Requests of outbound webhook management and event publication (contract.md). */

const eventType = v.picklist(eventTypes, `must be one of: ${eventTypes.join(', ')}`);

export const RegisterWebhookRequest = v.strictObject({
  url: v.pipe(
    v.string('must be a string'),
    v.maxLength(2048, 'must be at most 2048 characters'),
    v.url('must be an absolute URL'),
    v.startsWith('https://', 'must use https'),
  ),
  events: v.pipe(
    v.array(eventType, 'must be an array of event types'),
    v.minLength(1, 'must name at least one event type'),
    v.check((events) => new Set(events).size === events.length, 'must not repeat an event type'),
  ),
});

export const WebhookPathParams = v.object({ id: identifier });

export const DeliveryPathParams = v.object({ id: identifier, delivery_id: identifier });

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

export const ListQuery = v.strictObject({ page, per_page: perPage });

export const ListDeliveriesQuery = v.strictObject({
  page,
  per_page: perPage,
  status: v.optional(
    v.picklist(deliveryStatuses, `must be one of: ${deliveryStatuses.join(', ')}`),
  ),
  created_after: v.optional(
    v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp, e.g. 2026-01-01T00:00:00Z')),
  ),
});

export const PublishEventRequest = v.strictObject({
  type: eventType,
  account_id: v.pipe(v.string('must be a string'), v.nonEmpty('is required'), v.maxLength(64)),
  data: v.record(v.string(), v.unknown(), 'must be an object'),
});
