import * as v from 'valibot';
import { email, otpCode } from './fields.js';

/**
 * Request bodies of the OTP operations by email (contract.md, "Request bodies"); those with a
 * phone number are in ./phone-requests.ts.
 */

export const ResendEmailOtpRequest = v.strictObject({ email });

export const VerifyEmailOtpRequest = v.strictObject({ email, otp: otpCode });
