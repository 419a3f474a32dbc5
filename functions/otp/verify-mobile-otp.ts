import { otpCheckDeps } from '../../shared/adapters/otp-operations.js';
import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { verifyMobileOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './verify-mobile-otp.operation.js';

/** POST /v1/otp/verify/mobile: confirms ownership of a phone number; its account is told. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, routeHit }) =>
    verifyMobileOtp(
      await otpCheckDeps(),
      accountCodeQueue(),
      { phone: body.mobile_number, otp: body.otp },
      routeHit,
    ),
);
