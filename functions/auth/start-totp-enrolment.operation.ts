import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { CurrentPasswordRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'startTotpEnrolment',
  method: 'POST',
  path: '/auth/mfa/totp/enrolment',
  entry: 'functions/auth/start-totp-enrolment.ts',
  auth: 'user',
  tag: 'auth',
  title: 'Start setting up an authenticator app',
  summary:
    'Check the current password and answer a new TOTP secret (URI and QR code), kept for 10 minutes until its first code confirms it',
  needs: { items: ['loginThrottle'] },
  body: CurrentPasswordRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.TotpEnrolment,
  errors: ['invalid_credentials', 'too_many_attempts', 'conflict'],
};
