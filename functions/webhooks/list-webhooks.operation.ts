import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { ListWebhooksQuery } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'listWebhooks',
  method: 'GET',
  path: '/webhooks',
  entry: 'functions/webhooks/list-webhooks.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'List endpoints',
  summary: "The caller's endpoints, newest first; filters: status, created_after, created_before",
  needs: { items: ['account'] },
  inputFields: { cursor: 'cursor' },
  query: ListWebhooksQuery,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Endpoint, paged: true };
