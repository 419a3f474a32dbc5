import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { resendDependencies } from '../../shared/adapters/otp-sends-wiring.js';
import { resendEmailOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { codeSentView } from '../../shared/http/views/otp.js';
import { operation } from './resend-email-otp.operation.js';

/**
 * POST /v1/otp/resend/email: queues a new code for an email waiting for verification (the
 * account-code worker looks the account up and sends it).
 */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, sourceIp }) =>
    codeSentView(await resendEmailOtp(resendDependencies(), body.email, sourceIp)),
);
