import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { SignupRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'signup',
  method: 'POST',
  path: '/auth/signup',
  entry: 'functions/auth/signup.ts',
  auth: 'none',
  tag: 'auth',
  title: 'Register an account',
  summary: 'Register an account and email a verification code',
  needs: { items: ['user', 'emailGuard', 'phoneGuard'], accountCodeQueue: true },
  successStatus: 201,
  body: SignupRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.SignupAccepted, errors: ['conflict'] };
