import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { type Answer, apiOperation } from '../../shared/http/operation.js';
import { ResendMobileOtpRequest } from '../../shared/http/schemas/otp.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = apiOperation({
  name: 'resendMobileOtp',
  method: 'POST',
  path: '/otp/resend/mobile',
  entry: 'functions/otp/resend-mobile-otp.ts',
  auth: 'none',
  tag: 'otp',
  title: 'Resend the SMS code',
  summary: 'Send a new SMS verification code',
  needs: { accountCodeQueue: true, smsAllowList: true },
  body: ResendMobileOtpRequest,
  limits: [{ ...sendPerTarget, per: 'target', key: ({ body }) => `sms:${body.mobile_number}` }],
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = { data: r.CodeSent };
