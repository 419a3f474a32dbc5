import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { smsAllowedCountries } from '../../shared/config.js';
import { resendMobileOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './resend-mobile-otp.operation.js';

/**
 * POST /v1/otp/resend/mobile: queues a new code for a phone number waiting for verification (the
 * account-code worker looks the account up and sends it).
 */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async ({ body }) =>
  resendMobileOtp(
    { queue: accountCodeQueue(), smsCountries: smsAllowedCountries() },
    body.mobile_number,
  ),
);
