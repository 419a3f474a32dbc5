import { apiOperation } from '../../shared/http/operation.js';
import { ListWebhooksQuery } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'listWebhooks',
  method: 'GET',
  path: '/webhooks',
  entry: 'functions/webhooks/list-webhooks.ts',
  auth: 'user',
  tag: 'webhooks',
  summary: "The caller's endpoints, newest first; filters: status, created_after, created_before",
  needs: { items: ['account'] },
  query: ListWebhooksQuery,
});
