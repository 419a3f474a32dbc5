import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { ResendEmailOtpRequest } from '../../shared/http/schemas/otp.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'resendEmailOtp',
  method: 'POST',
  path: '/otp/resend/email',
  entry: 'functions/otp/resend-email-otp.ts',
  auth: 'none',
  tag: 'otp',
  title: 'Resend the email code',
  summary: 'Send a new email verification code',
  needs: { accountCodeQueue: true },
  body: ResendEmailOtpRequest,
  limits: [{ ...sendPerTarget, per: 'target', key: ({ body }) => `email:${body.email}` }],
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.CodeSent };
