import { sendForgotPasswordCode } from '../accounts/passwords.js';
import type { AccountCodeRequest } from '../accounts/ports.js';
import {
  type OtpOperationDeps,
  sendPendingEmailCode,
  sendPendingMobileCode,
} from './operations.js';

/**
 * The account-code worker's use-case: does the code work that forgotPassword, resendEmailOtp and
 * resendMobileOtp queued (look the account up, pick the purpose, issue, send). A message for an
 * unknown target sends nothing; limits are absorbed, so a redelivered message is harmless.
 * Throws only what a retry may fix (storage, SES, SNS) or a ServiceError for a refusal that a
 * retry would meet again (a number SNS will not text).
 */
export async function fulfilCodeRequest(
  deps: OtpOperationDeps,
  work: AccountCodeRequest,
): Promise<void> {
  switch (work.kind) {
    case 'forgot_password':
      return sendForgotPasswordCode(deps.accounts, deps.codes, work.target);
    case 'resend_email':
      return sendPendingEmailCode(deps, work.target);
    case 'resend_mobile':
      return sendPendingMobileCode(deps, work.target);
  }
}
