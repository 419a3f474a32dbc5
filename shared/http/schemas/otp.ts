import * as v from 'valibot';
import { email, otpCode } from './fields.js';
import { phone } from './phone.js';

/** Request bodies and queries of the OTP operations (contract.md, "Request bodies"). */

export const otpPurposes = ['login', 'generic'] as const;

const purpose = v.picklist(otpPurposes, `must be one of: ${otpPurposes.join(', ')}`);

export const SendOtpInput = v.strictObject({ phone_number: phone, purpose });

export const VerifyOtpInput = v.strictObject({ phone_number: phone, code: otpCode, purpose });

export const ResendEmailOtpRequest = v.strictObject({ email });

export const ResendMobileOtpRequest = v.strictObject({ mobile_number: phone });

export const VerifyEmailOtpRequest = v.strictObject({ email, otp: otpCode });

export const VerifyMobileOtpRequest = v.strictObject({ mobile_number: phone, otp: otpCode });

export const VerifyPhoneAccountQuery = v.strictObject({ phone });
