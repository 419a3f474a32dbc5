import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { UpdateWebhookRequest, WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'updateWebhook',
  method: 'PATCH',
  path: '/webhooks/{id}',
  entry: 'functions/webhooks/update-webhook.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Update an endpoint',
  summary:
    'Change url, events, description, status or rate_limit; enabling sends the deliveries that waited',
  needs: {
    items: ['account', 'delivery', 'pausedDeliveries'],
    deliveryQueue: true,
  },
  body: UpdateWebhookRequest,
  params: WebhookPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Endpoint, errors: ['not_found', 'conflict'] };
