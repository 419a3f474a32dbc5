import { type Answer, apiOperation } from '../../shared/http/operation.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'jwks',
  method: 'GET',
  path: '/.well-known/jwks.json',
  entry: 'functions/meta/jwks.ts',
  auth: 'none',
  tag: 'meta',
  title: 'Token signing keys (JWKS)',
  summary: 'Public keys that verify access tokens',
  needs: { reads: ['accessTokenKeys'] },
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { document: 'json', data: r.Jwks };
