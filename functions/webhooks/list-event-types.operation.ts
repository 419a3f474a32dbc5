import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';
import { ListEventTypesQuery } from '../../shared/http/schemas/webhooks.js';

export const operation = apiOperation({
  name: 'listEventTypes',
  method: 'GET',
  path: '/event-types',
  entry: 'functions/webhooks/list-event-types.ts',
  auth: 'none',
  tag: 'events',
  title: 'List event types',
  summary:
    'The event types an endpoint can subscribe to, with the JSON Schema of each payload; filters: status, created_after, created_before (every type is active, none has a creation time)',
  needs: {},
  inputFields: { cursor: 'cursor' },
  query: ListEventTypesQuery,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.EventType, paged: true };
