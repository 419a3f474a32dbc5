import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { smsAllowedCountries } from '../../shared/config.js';
import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { resendMobileOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { ResendMobileOtpRequest } from '../../shared/http/schemas/phone-requests.js';

/**
 * POST /v1/otp/resend/mobile: queues a new code for a phone number waiting for verification (the
 * account-code worker looks the account up and sends it).
 */
export const handler = apiHandler(
  {
    body: ResendMobileOtpRequest,
    limits: [{ ...sendPerTarget, key: ({ body }) => `sms:${body.mobile_number}` }],
  },
  async ({ body }) =>
    resendMobileOtp(
      { queue: accountCodeQueue(), smsCountries: smsAllowedCountries() },
      body.mobile_number,
    ),
);
