import * as v from 'valibot';
import { email, otpCode, password } from './fields.js';

/**
 * Request bodies of the account operations (contract.md, "Request bodies"); those with a phone
 * number are in ./phone-requests.ts.
 */

export const VerifySignupOtpRequest = v.strictObject({ email, otp: otpCode });

export const LoginRequest = v.strictObject({
  email,
  // Any length up to the cap is accepted here: a login must not reveal the password rules.
  password: v.pipe(
    v.string('must be a string'),
    v.nonEmpty('is required'),
    v.maxLength(128, 'must be at most 128 characters'),
  ),
});

export const RefreshTokenRequest = v.strictObject({
  refresh_token: v.pipe(
    v.string('must be a string'),
    v.nonEmpty('is required'),
    v.maxLength(256, 'must be at most 256 characters'),
  ),
});

export const ChangePasswordRequest = v.strictObject({
  current_password: v.pipe(
    v.string('must be a string'),
    v.nonEmpty('is required'),
    v.maxLength(128, 'must be at most 128 characters'),
  ),
  new_password: password,
});

export const ForgotPasswordRequest = v.strictObject({ email });

export const ResetPasswordWithOtpRequest = v.strictObject({
  email,
  otp: otpCode,
  new_password: password,
});
