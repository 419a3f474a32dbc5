import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { SendOtpInput } from '../../shared/http/schemas/otp.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'sendOtp',
  method: 'POST',
  path: '/otp/send',
  entry: 'functions/otp/send-otp.ts',
  auth: 'user-if-generic',
  tag: 'otp',
  title: 'Send an SMS code',
  summary:
    'Send an SMS code: purpose login (public; texted only to the verified phone of an account, the same answer for every number) or generic (Bearer token; the code is bound to the caller)',
  needs: {
    items: ['otp', 'otpAttempts', 'otpSends', 'otpFailures', 'smsSends', 'genericSms'],
    sms: true,
    accountCodeQueue: true,
    secrets: ['OTP_PEPPER'],
  },
  body: SendOtpInput,
  inputFields: { phone: 'phone_number' },
  bearerWhen: ({ body }) => body.purpose === 'generic',
  limits: [{ ...sendPerTarget, per: 'target', key: ({ body }) => `sms:${body.phone_number}` }],
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.SmsCodeSent,
  errors: ['too_many_attempts'],
  tooManyRequests: [
    '`rate_limited`: this caller asked for a code for the number less than 60 s ago, or for 3 codes to it this hour; the number was sent 10 codes this hour; the service’s texts of the hour are spent (generic codes: all but the share kept for sign-in and verification, SMS_RESERVED_PERCENT); or, for generic, the signed-in account had codes texted to GENERIC_SMS_NUMBERS_PER_HOUR numbers this hour or GENERIC_SMS_PER_DAY codes today.',
    '`too_many_attempts` (generic): this caller spent its attempts at the number’s code, or the number’s wrong codes of the day reached their ceiling: a new code could not be verified.',
  ],
};
