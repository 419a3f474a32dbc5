import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { PublishEventRequest } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'publishEvent',
  method: 'POST',
  path: '/events',
  entry: 'functions/webhooks/publish-event.ts',
  auth: 'iam',
  tag: 'events',
  title: 'Publish an event',
  summary: "Publish an event to the account's subscribed endpoints",
  needs: { items: ['account', 'event', 'eventIdempotency', 'delivery'], deliveryQueue: true },
  successStatus: 201,
  body: PublishEventRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.EventPublished,
  errors: ['conflict'],
  idempotencyKey: true,
};
