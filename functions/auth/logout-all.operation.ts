import { apiOperation } from '../../shared/http/operation.js';

export const operation = apiOperation({
  name: 'logoutAll',
  method: 'POST',
  path: '/auth/logout-all',
  entry: 'functions/auth/logout-all.ts',
  auth: 'user',
  tag: 'auth',
  summary: 'End every session of the caller, this one included',
  needs: {},
});
