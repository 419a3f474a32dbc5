import { apiOperation } from '../../shared/http/operation.js';
import { SignupRequest } from '../../shared/http/schemas/auth.js';

export const operation = apiOperation({
  name: 'signup',
  method: 'POST',
  path: '/auth/signup',
  entry: 'functions/auth/signup.ts',
  auth: 'none',
  tag: 'auth',
  summary: 'Register an account and email a verification code',
  needs: { items: ['user', 'emailGuard', 'phoneGuard'], accountCodeQueue: true },
  successStatus: 201,
  body: SignupRequest,
});
