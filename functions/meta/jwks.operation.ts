import { apiOperation } from '../../shared/http/operation.js';

export const operation = apiOperation({
  name: 'jwks',
  method: 'GET',
  path: '/.well-known/jwks.json',
  entry: 'functions/meta/jwks.ts',
  auth: 'none',
  tag: 'meta',
  summary: 'Public keys that verify access tokens',
  needs: { secrets: ['JWT_SIGNING_KEYS'] },
});
