import { apiOperation } from '../../shared/http/operation.js';
import { ChangePasswordRequest } from '../../shared/http/schemas/auth.js';

export const operation = apiOperation({
  name: 'changePassword',
  method: 'POST',
  path: '/auth/change-password',
  entry: 'functions/auth/change-password.ts',
  auth: 'user',
  tag: 'auth',
  summary: 'Change (or, with no password yet, set) the password and revoke every other session',
  needs: { items: ['loginThrottle'], accountCodeQueue: true },
  body: ChangePasswordRequest,
});
