import * as v from 'valibot';
import { currentPassword, email, otpCode, password } from './fields.js';

/**
 * Request bodies of the account operations (contract.md, "Request bodies"); those with a phone
 * number are in ./phone-requests.ts.
 */

export const VerifySignupOtpRequest = v.strictObject({ email, otp: otpCode });

export const LoginRequest = v.strictObject({ email, password: currentPassword });

export const RefreshTokenRequest = v.strictObject({
  refresh_token: v.pipe(
    v.string('must be a string'),
    v.nonEmpty('is required'),
    v.maxLength(256, 'must be at most 256 characters'),
  ),
});

/**
 * `current_password` is required unless the account has no password yet (a contested signup's
 * activation answered `password_reset_required: true`); the use-case says which.
 */
export const ChangePasswordRequest = v.strictObject({
  current_password: v.optional(currentPassword),
  new_password: password,
});

export const ForgotPasswordRequest = v.strictObject({ email });

export const ResetPasswordWithOtpRequest = v.strictObject({
  email,
  otp: otpCode,
  new_password: password,
});

/** `DELETE /v1/auth/sessions/{id}`: a session id as the session list gives it. */
export const SessionPath = v.object({
  id: v.pipe(
    v.string('must be a string'),
    v.regex(/^ses_[A-Za-z0-9_-]{22}$/, 'must be a session id from the session list'),
  ),
});
