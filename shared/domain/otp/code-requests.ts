import { sendForgotPasswordCode } from '../accounts/forgot-password.js';
import { sendNotice } from '../accounts/notices.js';
import type { AccountCodeRequest } from '../accounts/ports.js';
import { followUpSignup, type SignupFollowUpDeps } from '../accounts/signup-follow-up.js';
import {
  type OtpOperationDeps,
  sendLoginCode,
  sendPendingEmailCode,
  sendPendingMobileCode,
} from './operations.js';

/** The OTP operations' dependencies, and what a signup's owner notice needs. */
export type CodeRequestDeps = OtpOperationDeps & SignupFollowUpDeps;

/**
 * The account-code worker's use-case: does the work that signup, forgotPassword, the resends,
 * sendOtp (login), profile changes and activations queued (look the account up, pick the purpose,
 * issue, send; or a signup's notice to a verified owner; or a security notice). A message for an
 * unknown target sends nothing; limits are absorbed and the signup notice is sent once per
 * window, so a redelivered message is harmless. Throws only what a retry may fix (storage, SES,
 * SNS) or a ServiceError for a refusal that a retry would meet again (a number SNS will not text).
 */
export async function fulfilCodeRequest(
  deps: CodeRequestDeps,
  work: AccountCodeRequest,
): Promise<void> {
  switch (work.kind) {
    case 'signup':
      return followUpSignup(deps, work.target, work.source);
    case 'forgot_password':
      return sendForgotPasswordCode(deps.accounts, deps.codes, work.target, work.source);
    case 'resend_email':
      return sendPendingEmailCode(deps, work.target, work.source, work.subject);
    case 'resend_mobile':
      return sendPendingMobileCode(deps, work.target, work.source, work.subject);
    case 'sms_login':
      return sendLoginCode(deps, work.target, work.source);
    case 'notice':
      return sendNotice(deps.mailer, work);
  }
}
