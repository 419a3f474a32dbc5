import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { ResetPasswordWithOtpRequest } from '../../shared/http/schemas/auth.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'resetPasswordWithOtp',
  method: 'POST',
  path: '/auth/reset-password-otp',
  entry: 'functions/auth/reset-password-otp.ts',
  auth: 'none',
  tag: 'auth',
  title: 'Reset the password',
  summary: 'Set a new password with the emailed code; revokes all sessions',
  needs: {
    items: ['user', 'emailGuard', 'loginThrottle', 'otp', 'otpAttempts', 'otpFailures'],
    accountCodeQueue: true,
    secrets: ['OTP_PEPPER'],
  },
  body: ResetPasswordWithOtpRequest,
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.Message,
  checksCode: true,
  errors: ['conflict'],
};
