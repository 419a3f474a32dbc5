import * as v from 'valibot';
import { smsPurposes } from '../../domain/otp/purposes.js';
import { currentPassword, email, gender, name, otpCode, password } from './fields.js';
import { phone } from './phone.js';

/**
 * The request bodies and queries that carry a phone number (contract.md, "Request bodies"). They
 * live apart from the others because parsing a phone needs the phone metadata (~120 KiB), which
 * then reaches only the bundles of these operations: esbuild cannot drop an unused schema
 * constant from a module a handler imports (valibot's calls are not known to be pure).
 */

export const SignupRequest = v.strictObject({
  name,
  email,
  phone: v.optional(phone),
  password,
});

export const ProfileUpdateRequest = v.pipe(
  v.strictObject({
    name: v.optional(name),
    email: v.optional(email),
    phone_number: v.optional(phone),
    gender: v.optional(gender),
    online_status: v.optional(v.boolean('must be a boolean')),
    /** Required with a new email or phone_number. */
    current_password: v.optional(currentPassword),
  }),
  v.check(
    ({ current_password: _password, ...changes }) =>
      Object.values(changes).some((value) => value !== undefined),
    'at least one of name, email, phone_number, gender, online_status is required',
  ),
);

const purpose = v.picklist(smsPurposes, `must be one of: ${smsPurposes.join(', ')}`);

export const SendOtpInput = v.strictObject({ phone_number: phone, purpose });

export const VerifyOtpInput = v.strictObject({ phone_number: phone, code: otpCode, purpose });

export const ResendMobileOtpRequest = v.strictObject({ mobile_number: phone });

export const VerifyMobileOtpRequest = v.strictObject({ mobile_number: phone, otp: otpCode });

export const VerifyPhoneAccountQuery = v.strictObject({ phone });
