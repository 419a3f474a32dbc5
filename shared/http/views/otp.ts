import type { SignInOutcome } from '../../domain/accounts/mfa-challenge.js';
import type { CodeSent, GenericVerification } from '../../domain/otp/operations.js';
import { signInView } from './accounts.js';

/** The public (snake_case) shapes of the OTP answers (the OpenAPI document). */

/** A code sent or queued: what to tell, and how long the code lives. */
export const codeSentView = (sent: CodeSent) => ({
  message: sent.message,
  expires_in: sent.expiresIn,
});

/** sendOtp: the number and purpose, then the code sent. */
export const sendOtpView = (sent: CodeSent & { phone: string; purpose: string }) => ({
  phone_number: sent.phone,
  purpose: sent.purpose,
  ...codeSentView(sent),
});

/**
 * verifyOtp: the token answer of a login code (or the MFA ticket, for an account with a second
 * factor), the confirmation of a generic one.
 */
export const verifyOtpView = (result: SignInOutcome | GenericVerification) =>
  'verified' in result
    ? { verified: result.verified, phone_number: result.phone, purpose: result.purpose }
    : signInView(result);

/** verifyMobileOtp: the number now verified. */
export const mobileVerifiedView = (result: { verified: true; phone: string }) => ({
  verified: result.verified,
  mobile_number: result.phone,
});
