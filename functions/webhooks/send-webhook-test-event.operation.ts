import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { TestEventQuery, WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'sendWebhookTestEvent',
  method: 'POST',
  path: '/webhooks/{id}/test',
  entry: 'functions/webhooks/send-webhook-test-event.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Send a test event',
  summary:
    'Deliver a test event to the endpoint, or (event_type) the example event of a type it subscribes to',
  needs: {
    items: ['account', 'delivery', 'event'],
    deliveryQueue: true,
  },
  query: TestEventQuery,
  params: WebhookPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.TestEventSent, errors: ['not_found', 'conflict'] };
