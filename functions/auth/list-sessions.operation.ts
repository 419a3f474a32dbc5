import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { ListSessionsQuery } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'listSessions',
  method: 'GET',
  path: '/auth/sessions',
  entry: 'functions/auth/list-sessions.ts',
  auth: 'user',
  tag: 'auth',
  title: 'List sessions',
  summary:
    "The caller's live sessions, in the order of their ids, a page at a time; filters: created_after, created_before",
  needs: {},
  inputFields: { cursor: 'cursor' },
  query: ListSessionsQuery,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Session, paged: true };
