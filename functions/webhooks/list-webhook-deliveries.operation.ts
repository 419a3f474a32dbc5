import { apiOperation } from '../../shared/http/operation.js';
import { ListDeliveriesQuery, WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'listWebhookDeliveries',
  method: 'GET',
  path: '/webhooks/{id}/deliveries',
  entry: 'functions/webhooks/list-webhook-deliveries.ts',
  auth: 'user',
  tag: 'webhooks',
  summary:
    'Deliveries to an endpoint with their attempts; filters: status, event_type, created_after, created_before',
  needs: { items: ['account', 'endpointDeliveries'] },
  query: ListDeliveriesQuery,
  params: WebhookPathParams,
});
