import { apiOperation } from '../../shared/http/operation.js';
import { LoginRequest } from '../../shared/http/schemas/auth.js';

export const operation = apiOperation({
  name: 'login',
  method: 'POST',
  path: '/auth/login',
  entry: 'functions/auth/login.ts',
  auth: 'none',
  tag: 'auth',
  summary: 'Log in with email and password',
  needs: {
    items: ['user', 'emailGuard', 'loginThrottle', 'refreshToken'],
    secrets: ['JWT_SIGNING_KEYS'],
  },
  body: LoginRequest,
});
