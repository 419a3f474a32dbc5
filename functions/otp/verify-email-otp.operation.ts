import { verifyPerTarget } from '../../shared/domain/otp/limits.js';
import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { VerifyEmailOtpRequest } from '../../shared/http/schemas/otp.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'verifyEmailOtp',
  method: 'POST',
  path: '/otp/verify/email',
  entry: 'functions/otp/verify-email-otp.ts',
  auth: 'none',
  tag: 'otp',
  title: 'Verify an email',
  summary: 'Confirm ownership of an email address',
  needs: {
    items: ['user', 'emailGuard', 'otp', 'otpAttempts', 'otpFailures'],
    secrets: ['OTP_PEPPER'],
  },
  body: VerifyEmailOtpRequest,
  limits: [
    {
      ...verifyPerTarget,
      per: 'target',
      countedByUseCase: true,
      key: ({ body }) => `email:${body.email}`,
    },
  ],
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.EmailVerified,
  checksCode: true,
  errors: ['conflict'],
};
