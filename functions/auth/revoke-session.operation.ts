import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { SessionPath } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'revokeSession',
  method: 'DELETE',
  path: '/auth/sessions/{id}',
  entry: 'functions/auth/revoke-session.ts',
  auth: 'user',
  tag: 'auth',
  title: 'End a session',
  summary: "End one of the caller's sessions: its tokens stop working at once",
  needs: {},
  params: SessionPath,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.SessionRevoked, errors: ['not_found'] };
