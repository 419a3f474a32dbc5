import { authenticate } from '../../shared/adapters/authenticate.js';
import { otpCheckDeps } from '../../shared/adapters/otp-operations.js';
import { verifyPerTarget } from '../../shared/domain/otp/limits.js';
import { verifyOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { VerifyOtpInput } from '../../shared/http/schemas/phone-requests.js';
import { signInClient } from '../../shared/http/sign-in-client.js';

/**
 * POST /v1/otp/verify: consumes an SMS code; purpose login answers the token pair, purpose generic
 * (Bearer token) confirms the number for the signed-in caller.
 */
export const handler = apiHandler(
  {
    body: VerifyOtpInput,
    bearerWhen: { needed: ({ body }) => body.purpose === 'generic', authenticate },
    limits: [
      { ...verifyPerTarget, countedByUseCase: true, key: ({ body }) => `sms:${body.phone_number}` },
    ],
  },
  async (request) =>
    verifyOtp(
      await otpCheckDeps(),
      {
        phone: request.body.phone_number,
        code: request.body.code,
        purpose: request.body.purpose,
        userId: request.principal?.userId,
      },
      signInClient(request),
      request.routeHit,
    ),
);
