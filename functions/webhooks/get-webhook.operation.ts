import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'getWebhook',
  method: 'GET',
  path: '/webhooks/{id}',
  entry: 'functions/webhooks/get-webhook.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Get an endpoint',
  summary: 'One endpoint',
  needs: { items: ['account'] },
  params: WebhookPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Endpoint, errors: ['not_found'] };
