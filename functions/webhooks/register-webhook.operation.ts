import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { RegisterWebhookRequest } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'registerWebhook',
  method: 'POST',
  path: '/webhooks',
  entry: 'functions/webhooks/register-webhook.ts',
  auth: 'user',
  tag: 'webhooks',
  title: 'Register an endpoint',
  summary: 'Register an HTTPS endpoint for event types; returns its signing secret once',
  needs: { items: ['account'] },
  successStatus: 201,
  body: RegisterWebhookRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.EndpointWithSecret, errors: ['conflict'] };
