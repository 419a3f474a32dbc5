import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'logoutAll',
  method: 'POST',
  path: '/auth/logout-all',
  entry: 'functions/auth/logout-all.ts',
  auth: 'user',
  tag: 'auth',
  title: 'End every session',
  summary: 'End every session of the caller, this one included',
  needs: {},
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.Message };
