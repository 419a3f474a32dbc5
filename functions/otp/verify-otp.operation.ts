import { verifyPerTarget } from '../../shared/domain/otp/limits.js';
import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { VerifyOtpInput } from '../../shared/http/schemas/otp.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'verifyOtp',
  method: 'POST',
  path: '/otp/verify',
  entry: 'functions/otp/verify-otp.ts',
  auth: 'user-if-generic',
  tag: 'otp',
  title: 'Verify an SMS code',
  summary:
    'Verify an SMS code: purpose login (public) returns a token pair; generic (Bearer token) confirms the number for the caller',
  needs: {
    items: ['phoneGuard', 'otp', 'otpAttempts', 'otpFailures', 'refreshToken', 'mfaTicket'],
    secrets: ['JWT_SIGNING_KEYS', 'OTP_PEPPER'],
  },
  body: VerifyOtpInput,
  bearerWhen: ({ body }) => body.purpose === 'generic',
  limits: [
    {
      ...verifyPerTarget,
      per: 'target',
      countedByUseCase: true,
      key: ({ body }) => `sms:${body.phone_number}`,
    },
  ],
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.OtpVerified,
  checksCode: true,
};
