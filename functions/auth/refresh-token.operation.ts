import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { RefreshTokenRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'refreshToken',
  method: 'POST',
  path: '/auth/refresh-token',
  entry: 'functions/auth/refresh-token.ts',
  auth: 'none',
  tag: 'auth',
  title: 'Refresh the tokens',
  summary: 'Exchange a refresh token for a new token pair (rotation)',
  needs: { items: ['user', 'refreshToken'], secrets: ['JWT_SIGNING_KEYS'] },
  body: RefreshTokenRequest,
  countsOwnHit: true,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.TokenPair, errors: ['invalid_token', 'conflict'] };
