import { accountCodeDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { removeTotp } from '../../shared/domain/accounts/second-factor.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './remove-totp.operation.js';

/** DELETE /v1/auth/mfa/totp: the current password removes the app; the owner is told. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body, sourceIp }) => {
    await removeTotp(
      accountCodeDependencies(),
      { userId: principal.userId, source: sourceIp },
      body.current_password,
    );
    return { message: 'The authenticator app was removed; sign-ins no longer ask for its codes' };
  },
);
