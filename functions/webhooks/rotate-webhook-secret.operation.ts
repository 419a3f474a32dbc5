import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'rotateWebhookSecret',
  method: 'POST',
  path: '/webhooks/{id}/rotate-secret',
  entry: 'functions/webhooks/rotate-webhook-secret.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Rotate the signing secret',
  summary: 'Issue a new signing secret; the old one also signs for 24 hours',
  needs: { items: ['account'] },
  params: WebhookPathParams,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.RotatedEndpoint, errors: ['not_found'] };
