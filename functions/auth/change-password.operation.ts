import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { ChangePasswordRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'changePassword',
  method: 'POST',
  path: '/auth/change-password',
  entry: 'functions/auth/change-password.ts',
  auth: 'user',
  tag: 'auth',
  title: 'Change the password',
  summary: 'Change (or, with no password yet, set) the password and revoke every other session',
  needs: { items: ['loginThrottle'], accountCodeQueue: true },
  body: ChangePasswordRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.Message,
  errors: ['invalid_credentials', 'too_many_attempts', 'conflict'],
};
