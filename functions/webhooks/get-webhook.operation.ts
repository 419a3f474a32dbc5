import { apiOperation } from '../../shared/http/operation.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'getWebhook',
  method: 'GET',
  path: '/webhooks/{id}',
  entry: 'functions/webhooks/get-webhook.ts',
  auth: 'user',
  tag: 'webhooks',
  summary: 'One endpoint',
  needs: { items: ['account'] },
  params: WebhookPathParams,
});
