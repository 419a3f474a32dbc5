import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { CurrentPasswordRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'replaceRecoveryCodes',
  method: 'POST',
  path: '/auth/mfa/recovery-codes',
  entry: 'functions/auth/replace-recovery-codes.ts',
  auth: 'user',
  tag: 'auth',
  title: 'Replace the recovery codes',
  summary:
    'Check the current password and answer ten new recovery codes for the authenticator app, shown once: the earlier ones stop working',
  needs: { items: ['loginThrottle'], accountCodeQueue: true },
  body: CurrentPasswordRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.TotpEnabled,
  errors: ['invalid_credentials', 'too_many_attempts', 'not_found'],
};
