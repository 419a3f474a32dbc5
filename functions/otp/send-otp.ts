import { otpOperationDeps } from '../../shared/adapters/otp-operations.js';
import { sendPerTarget } from '../../shared/domain/otp/limits.js';
import { sendOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { SendOtpInput } from '../../shared/http/schemas/phone-requests.js';

/** POST /v1/otp/send: texts a code for login (active accounts only) or a generic check. */
export const handler = apiHandler(
  {
    body: SendOtpInput,
    limits: [{ ...sendPerTarget, key: ({ body }) => `sms:${body.phone_number}` }],
  },
  async ({ body }) =>
    sendOtp(await otpOperationDeps(), { phone: body.phone_number, purpose: body.purpose }),
);
