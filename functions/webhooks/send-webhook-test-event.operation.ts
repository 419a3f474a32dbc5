import { apiOperation } from '../../shared/http/operation.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'sendWebhookTestEvent',
  method: 'POST',
  path: '/webhooks/{id}/test',
  entry: 'functions/webhooks/send-webhook-test-event.ts',
  auth: 'user',
  tag: 'webhooks',
  summary: 'Deliver a test event to the endpoint',
  needs: {
    items: ['account', 'delivery', 'event'],
    deliveryQueue: true,
  },
  params: WebhookPathParams,
});
