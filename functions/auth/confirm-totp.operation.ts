import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { ConfirmTotpRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'confirmTotp',
  method: 'POST',
  path: '/auth/mfa/totp',
  entry: 'functions/auth/confirm-totp.ts',
  auth: 'user',
  tag: 'auth',
  title: 'Turn on the authenticator app',
  summary:
    'Confirm the app being set up with its first code: every sign-in then asks for a code of it; answers ten recovery codes, shown once',
  needs: { items: ['otpAttempts', 'otpFailures'], accountCodeQueue: true },
  body: ConfirmTotpRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.TotpEnabled,
  checksCode: true,
  errors: ['not_found', 'conflict'],
};
