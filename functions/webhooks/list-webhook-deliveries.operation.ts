import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { ListDeliveriesQuery, WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'listWebhookDeliveries',
  method: 'GET',
  path: '/webhooks/{id}/deliveries',
  entry: 'functions/webhooks/list-webhook-deliveries.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'List deliveries',
  summary:
    'Deliveries to an endpoint with their attempts; filters: status, event_type, created_after, created_before',
  needs: { items: ['account', 'delivery', 'endpointDeliveries'] },
  inputFields: { cursor: 'cursor' },
  query: ListDeliveriesQuery,
  params: WebhookPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Delivery, paged: true, errors: ['not_found'] };
