import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { otpCheckDependencies } from '../../shared/adapters/otp-wiring.js';
import { verifyEmailOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './verify-email-otp.operation.js';

/** POST /v1/otp/verify/email: confirms ownership of an email address. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, sourceIp, routeHit }) =>
    verifyEmailOtp(otpCheckDependencies(), { ...body, source: sourceIp }, routeHit),
);
