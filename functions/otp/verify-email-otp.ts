import { otpCheckDeps } from '../../shared/adapters/otp-operations.js';
import { verifyPerTarget } from '../../shared/domain/otp/limits.js';
import { verifyEmailOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { VerifyEmailOtpRequest } from '../../shared/http/schemas/otp.js';

/** POST /v1/otp/verify/email: confirms ownership of an email address. */
export const handler = apiHandler(
  {
    body: VerifyEmailOtpRequest,
    limits: [
      { ...verifyPerTarget, countedByUseCase: true, key: ({ body }) => `email:${body.email}` },
    ],
  },
  async ({ body, routeHit }) => verifyEmailOtp(await otpCheckDeps(), body, routeHit),
);
