import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { resendEmailOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { ResendEmailOtpRequest } from '../../shared/http/schemas/otp.js';

/**
 * POST /v1/otp/resend/email: queues a new code for an email waiting for verification (the
 * account-code worker looks the account up and sends it).
 */
export const handler = apiHandler(
  {
    body: ResendEmailOtpRequest,
    limits: [{ ...sendPerTarget, key: ({ body }) => `email:${body.email}` }],
  },
  async ({ body }) => resendEmailOtp(accountCodeQueue(), body.email),
);
