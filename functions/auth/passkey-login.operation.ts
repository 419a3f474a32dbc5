import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { PasskeyLoginRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'passkeyLogin',
  method: 'POST',
  path: '/auth/passkeys/login',
  entry: 'functions/auth/passkey-login.ts',
  auth: 'none',
  tag: 'passkeys',
  title: 'Sign in with a passkey',
  summary:
    "Verify the browser's answer to the sign-in options and answer the token pair (no second factor follows: a passkey is one)",
  needs: {
    items: ['user', 'passkey', 'passkeyChallenge', 'refreshToken'],
    secrets: ['JWT_SIGNING_KEYS'],
    passkeys: true,
  },
  body: PasskeyLoginRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.TokenPair, errors: ['invalid_credentials'] };
