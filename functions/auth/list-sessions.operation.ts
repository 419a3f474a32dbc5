import { apiOperation } from '../../shared/http/operation.js';

export const operation = apiOperation({
  name: 'listSessions',
  method: 'GET',
  path: '/auth/sessions',
  entry: 'functions/auth/list-sessions.ts',
  auth: 'user',
  tag: 'auth',
  summary: "The caller's live sessions, newest first",
  needs: {},
});
