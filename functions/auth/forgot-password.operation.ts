import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { ForgotPasswordRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'forgotPassword',
  method: 'POST',
  path: '/auth/forgot-password',
  entry: 'functions/auth/forgot-password.ts',
  auth: 'none',
  tag: 'auth',
  title: 'Request a password reset',
  summary: 'Email a password-reset code (or a verification code first)',
  needs: { items: ['user', 'emailGuard'], accountCodeQueue: true },
  body: ForgotPasswordRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.ForgotPasswordAccepted };
