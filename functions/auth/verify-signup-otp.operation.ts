import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { VerifySignupOtpRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'verifySignupOtp',
  method: 'POST',
  path: '/auth/verify-signup-otp',
  entry: 'functions/auth/verify-signup-otp.ts',
  auth: 'none',
  tag: 'auth',
  title: 'Verify the sign-up code',
  summary: 'Verify the sign-up code, activate the account and log in',
  needs: {
    items: ['user', 'emailGuard', 'otp', 'otpAttempts', 'otpFailures', 'refreshToken'],
    accountCodeQueue: true,
    secrets: ['JWT_SIGNING_KEYS', 'OTP_PEPPER'],
  },
  body: VerifySignupOtpRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.Activation,
  checksCode: true,
  errors: ['conflict'],
};
