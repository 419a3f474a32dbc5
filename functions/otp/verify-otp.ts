import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { otpCheckDependencies } from '../../shared/adapters/otp-wiring.js';
import { verifyOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { signInClient } from '../../shared/http/sign-in-client.js';
import { verifyOtpView } from '../../shared/http/views/otp.js';
import { operation } from './verify-otp.operation.js';

/**
 * POST /v1/otp/verify: consumes an SMS code; purpose login answers the token pair, purpose generic
 * (Bearer token) confirms the number for the signed-in caller.
 */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async (request) =>
    verifyOtpView(
      await verifyOtp(
        otpCheckDependencies(),
        {
          phone: request.body.phone_number,
          code: request.body.code,
          purpose: request.body.purpose,
          userId: request.principal?.userId,
          source: request.sourceIp,
        },
        signInClient(request),
        request.routeHit,
      ),
    ),
);
