import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { VerifyMfaRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'verifyMfa',
  method: 'POST',
  path: '/auth/mfa/verify',
  entry: 'functions/auth/verify-mfa.ts',
  auth: 'none',
  tag: 'auth',
  title: 'Finish a sign-in with the second factor',
  summary:
    "Exchange a sign-in's MFA ticket and a code of the authenticator app (or a recovery code) for the token pair",
  needs: {
    items: [
      'user',
      'loginThrottle',
      'phoneGuard',
      'refreshToken',
      'mfaTicket',
      'otpAttempts',
      'otpFailures',
    ],
    secrets: ['JWT_SIGNING_KEYS'],
  },
  body: VerifyMfaRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.TokenPair,
  checksCode: true,
  errors: ['invalid_token', 'conflict'],
};
