import { accountCodeDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { replaceRecoveryCodes } from '../../shared/domain/accounts/second-factor.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './replace-recovery-codes.operation.js';

/** POST /v1/auth/mfa/recovery-codes: the current password buys ten new recovery codes. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body, sourceIp }) => ({
    recovery_codes: await replaceRecoveryCodes(
      accountCodeDependencies(),
      { userId: principal.userId, source: sourceIp },
      body.current_password,
    ),
  }),
);
