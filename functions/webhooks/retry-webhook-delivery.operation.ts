import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { DeliveryPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'retryWebhookDelivery',
  method: 'POST',
  path: '/webhooks/{id}/deliveries/{delivery_id}/retry',
  entry: 'functions/webhooks/retry-webhook-delivery.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Retry a delivery',
  summary: 'Attempt a delivery again now',
  needs: { items: ['account', 'delivery'], deliveryQueue: true },
  params: DeliveryPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Delivery, errors: ['not_found', 'conflict'] };
