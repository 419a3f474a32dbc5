import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { CurrentPasswordRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'removeTotp',
  method: 'DELETE',
  path: '/auth/mfa/totp',
  entry: 'functions/auth/remove-totp.ts',
  auth: 'user',
  tag: 'auth',
  title: 'Remove the authenticator app',
  summary:
    'Check the current password and remove the app and its recovery codes: sign-ins no longer ask for a code of it',
  needs: { items: ['loginThrottle'], accountCodeQueue: true },
  body: CurrentPasswordRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.Message,
  errors: ['invalid_credentials', 'too_many_attempts', 'not_found'],
};
