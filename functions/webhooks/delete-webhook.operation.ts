import { apiOperation } from '../../shared/http/operation.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'deleteWebhook',
  method: 'DELETE',
  path: '/webhooks/{id}',
  entry: 'functions/webhooks/delete-webhook.ts',
  auth: 'user',
  tag: 'webhooks',
  summary: 'Delete an endpoint; pending deliveries to it stop',
  needs: { items: ['account'] },
  params: WebhookPathParams,
});
