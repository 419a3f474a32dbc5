import { apiOperation } from '../../shared/http/operation.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'rotateWebhookSecret',
  method: 'POST',
  path: '/webhooks/{id}/rotate-secret',
  entry: 'functions/webhooks/rotate-webhook-secret.ts',
  auth: 'user',
  tag: 'webhooks',
  summary: 'Issue a new signing secret; the old one also signs for 24 hours',
  needs: { items: ['account'] },
  params: WebhookPathParams,
});
