import * as v from 'valibot';
import { smsPurposes } from '../../domain/otp/purposes.js';
import { email, otpCode } from './fields.js';
import { phone } from './phone.js';

/** Request bodies and queries of the OTP operations (docs/otp.md, "Operations"). */

export const ResendEmailOtpRequest = /* @__PURE__ */ v.strictObject({ email });

export const VerifyEmailOtpRequest = /* @__PURE__ */ v.strictObject({ email, otp: otpCode });

const purpose = /* @__PURE__ */ v.picklist(
  smsPurposes,
  `must be one of: ${/* @__PURE__ */ smsPurposes.join(', ')}`,
);

export const SendOtpInput = /* @__PURE__ */ v.strictObject({ phone_number: phone, purpose });

export const VerifyOtpInput = /* @__PURE__ */ v.strictObject({
  phone_number: phone,
  code: otpCode,
  purpose,
});

export const ResendMobileOtpRequest = /* @__PURE__ */ v.strictObject({ mobile_number: phone });

export const VerifyMobileOtpRequest = /* @__PURE__ */ v.strictObject({
  mobile_number: phone,
  otp: otpCode,
});

export const VerifyPhoneAccountQuery = /* @__PURE__ */ v.strictObject({ phone });
