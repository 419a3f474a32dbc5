import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { apiOperation } from '../../shared/http/operation.js';
import { SendOtpInput } from '../../shared/http/schemas/otp.js';

export const operation = apiOperation({
  name: 'sendOtp',
  method: 'POST',
  path: '/otp/send',
  entry: 'functions/otp/send-otp.ts',
  auth: 'user-if-generic',
  tag: 'otp',
  summary:
    'Send an SMS code: purpose login (public; texted only to the verified phone of an account, the same answer for every number) or generic (Bearer token; the code is bound to the caller)',
  needs: {
    items: ['otp', 'otpAttempts', 'otpSends', 'smsSends'],
    sms: true,
    accountCodeQueue: true,
    secrets: ['OTP_PEPPER'],
  },
  body: SendOtpInput,
  inputFields: { phone: 'phone_number' },
  bearerWhen: ({ body }) => body.purpose === 'generic',
  limits: [{ ...sendPerTarget, per: 'target', key: ({ body }) => `sms:${body.phone_number}` }],
});
