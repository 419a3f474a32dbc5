import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'logout',
  method: 'POST',
  path: '/auth/logout',
  entry: 'functions/auth/logout.ts',
  auth: 'none',
  tag: 'auth',
  title: 'Log out',
  summary: 'Revoke the session of the Bearer token, if any; always succeeds',
  needs: { items: ['user'], reads: ['accessTokenKeys'] },
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Message, optionalBearer: true };
