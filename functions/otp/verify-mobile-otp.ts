import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { mobileCheckDependencies } from '../../shared/adapters/otp-sends-wiring.js';
import { verifyMobileOtp } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { mobileVerifiedView } from '../../shared/http/views/otp.js';
import { operation } from './verify-mobile-otp.operation.js';

/** POST /v1/otp/verify/mobile: confirms ownership of a phone number; its account is told. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, sourceIp, routeHit }) =>
    mobileVerifiedView(
      await verifyMobileOtp(
        mobileCheckDependencies(),
        { phone: body.mobile_number, otp: body.otp, source: sourceIp },
        routeHit,
      ),
    ),
);
