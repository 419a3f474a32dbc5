import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'deleteWebhook',
  method: 'DELETE',
  path: '/webhooks/{id}',
  entry: 'functions/webhooks/delete-webhook.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Delete an endpoint',
  summary: 'Delete an endpoint; pending deliveries to it stop',
  needs: { items: ['account'] },
  params: WebhookPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.EndpointDeleted, errors: ['not_found'] };
