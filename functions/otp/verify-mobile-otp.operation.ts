import { verifyPerTarget } from '../../shared/domain/otp/limits.js';
import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { VerifyMobileOtpRequest } from '../../shared/http/schemas/otp.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'verifyMobileOtp',
  method: 'POST',
  path: '/otp/verify/mobile',
  entry: 'functions/otp/verify-mobile-otp.ts',
  auth: 'none',
  tag: 'otp',
  title: 'Verify a phone',
  summary: 'Confirm ownership of a phone number',
  needs: {
    items: ['user', 'phoneGuard', 'otp', 'otpAttempts', 'otpFailures'],
    accountCodeQueue: true,
    secrets: ['OTP_PEPPER'],
  },
  body: VerifyMobileOtpRequest,
  limits: [
    {
      ...verifyPerTarget,
      per: 'target',
      countedByUseCase: true,
      key: ({ body }) => `sms:${body.mobile_number}`,
    },
  ],
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.MobileVerified,
  checksCode: true,
  errors: ['conflict'],
};
