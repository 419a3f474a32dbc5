import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { RecoverWebhookRequest, WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'recoverWebhook',
  method: 'POST',
  path: '/webhooks/{id}/recover',
  entry: 'functions/webhooks/recover-webhook.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Recover failed deliveries',
  summary:
    'Re-queue the failed deliveries created from since until until, 100 per call, each with a fresh ladder',
  needs: {
    items: ['account', 'delivery', 'failedDeliveries'],
    deliveryQueue: true,
  },
  successStatus: 202,
  body: RecoverWebhookRequest,
  params: WebhookPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Recovery, errors: ['not_found', 'conflict'] };
