import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { DeliveryPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'getWebhookDelivery',
  method: 'GET',
  path: '/webhooks/{id}/deliveries/{delivery_id}',
  entry: 'functions/webhooks/get-webhook-delivery.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Get a delivery',
  summary:
    'One delivery (by its id, or by its event’s id) with its attempts and the event it carries',
  needs: { items: ['account', 'delivery', 'event'] },
  params: DeliveryPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.DeliveryWithEvent, errors: ['not_found'] };
