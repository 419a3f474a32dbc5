import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { LoginRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'login',
  method: 'POST',
  path: '/auth/login',
  entry: 'functions/auth/login.ts',
  auth: 'none',
  tag: 'auth',
  title: 'Log in',
  summary: 'Log in with email and password',
  needs: {
    items: ['user', 'emailGuard', 'loginThrottle', 'refreshToken', 'mfaTicket'],
    secrets: ['JWT_SIGNING_KEYS'],
  },
  body: LoginRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.SignIn,
  errors: ['invalid_credentials', 'email_not_verified', 'too_many_attempts', 'conflict'],
};
