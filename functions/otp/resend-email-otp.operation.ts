import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { apiOperation } from '../../shared/http/operation.js';
import { ResendEmailOtpRequest } from '../../shared/http/schemas/otp.js';

export const operation = apiOperation({
  name: 'resendEmailOtp',
  method: 'POST',
  path: '/otp/resend/email',
  entry: 'functions/otp/resend-email-otp.ts',
  auth: 'none',
  tag: 'otp',
  summary: 'Send a new email verification code',
  needs: { accountCodeQueue: true },
  body: ResendEmailOtpRequest,
  limits: [{ ...sendPerTarget, per: 'target', key: ({ body }) => `email:${body.email}` }],
});
