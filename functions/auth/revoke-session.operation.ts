import { apiOperation } from '../../shared/http/operation.js';
import { SessionPath } from '../../shared/http/schemas/auth.js';

export const operation = apiOperation({
  name: 'revokeSession',
  method: 'DELETE',
  path: '/auth/sessions/{id}',
  entry: 'functions/auth/revoke-session.ts',
  auth: 'user',
  tag: 'auth',
  summary: "End one of the caller's sessions: its tokens stop working at once",
  needs: {},
  params: SessionPath,
});
