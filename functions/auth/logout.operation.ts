import { apiOperation } from '../../shared/http/operation.js';

export const operation = apiOperation({
  name: 'logout',
  method: 'POST',
  path: '/auth/logout',
  entry: 'functions/auth/logout.ts',
  auth: 'none',
  tag: 'auth',
  summary: 'Revoke the session of the Bearer token, if any; always succeeds',
  needs: { items: ['user'], secrets: ['JWT_SIGNING_KEYS'] },
});
