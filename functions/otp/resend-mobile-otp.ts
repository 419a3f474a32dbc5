import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { resendDependencies } from '../../shared/adapters/otp-sends-wiring.js';
import { resendMobileOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { codeSentView } from '../../shared/http/views/otp.js';
import { operation } from './resend-mobile-otp.operation.js';

/**
 * POST /v1/otp/resend/mobile: queues a new code for a phone number waiting for verification (the
 * account-code worker looks the account up and sends it).
 */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, sourceIp }) =>
    codeSentView(await resendMobileOtp(resendDependencies(), body.mobile_number, sourceIp)),
);
