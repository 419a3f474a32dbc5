import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { sendOtpDependencies } from '../../shared/adapters/otp-sends-wiring.js';
import { sendOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { sendOtpView } from '../../shared/http/views/otp.js';
import { operation } from './send-otp.operation.js';

/**
 * POST /v1/otp/send: texts a code for a generic check to the signed-in caller (Bearer token), or
 * queues a login code, which the account-code worker texts only to a verified phone.
 */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ body, principal, sourceIp }) =>
    sendOtpView(
      await sendOtp(sendOtpDependencies(), {
        phone: body.phone_number,
        purpose: body.purpose,
        userId: principal?.userId,
        source: sourceIp,
      }),
    ),
);
