import { accountCodeDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { mfaDependencies } from '../../shared/adapters/second-factor-wiring.js';
import { confirmTotp } from '../../shared/domain/accounts/second-factor.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './confirm-totp.operation.js';

/** POST /v1/auth/mfa/totp: the app's first code turns it on; answers the recovery codes. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body, sourceIp }) => ({
    recovery_codes: await confirmTotp(
      { ...mfaDependencies(), ...accountCodeDependencies() },
      { userId: principal.userId, source: sourceIp },
      body.code,
    ),
  }),
);
