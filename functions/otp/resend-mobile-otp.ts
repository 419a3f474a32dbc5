import { otpOperationDeps } from '../../shared/adapters/otp-operations.js';
import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { resendMobileOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { ResendMobileOtpRequest } from '../../shared/http/schemas/otp.js';

/** POST /v1/otp/resend/mobile: a new code for a phone number waiting for verification. */
export const handler = apiHandler(
  {
    body: ResendMobileOtpRequest,
    limits: [{ ...sendPerTarget, key: ({ body }) => `sms:${body.mobile_number}` }],
  },
  async ({ body }) => resendMobileOtp(await otpOperationDeps(), body.mobile_number),
);
