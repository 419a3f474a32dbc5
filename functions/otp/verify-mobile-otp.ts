import { otpCheckDeps } from '../../shared/adapters/otp-operations.js';
import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { verifyPerTarget } from '../../shared/domain/otp/limits.js';
import { verifyMobileOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { VerifyMobileOtpRequest } from '../../shared/http/schemas/phone-requests.js';

/** POST /v1/otp/verify/mobile: confirms ownership of a phone number; its account is told. */
export const handler = apiHandler(
  {
    body: VerifyMobileOtpRequest,
    limits: [
      {
        ...verifyPerTarget,
        countedByUseCase: true,
        key: ({ body }) => `sms:${body.mobile_number}`,
      },
    ],
  },
  async ({ body, routeHit }) =>
    verifyMobileOtp(
      await otpCheckDeps(),
      accountCodeQueue(),
      { phone: body.mobile_number, otp: body.otp },
      routeHit,
    ),
);
