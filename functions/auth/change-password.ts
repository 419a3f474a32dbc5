import { accountCodeDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { changePassword } from '../../shared/domain/accounts/passwords.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './change-password.operation.js';

/** POST /v1/auth/change-password: checks the current password; other sessions end. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body, sourceIp }) => {
    await changePassword(
      accountCodeDependencies(),
      { ...principal, source: sourceIp },
      { currentPassword: body.current_password, newPassword: body.new_password },
    );
    return { message: 'Password changed; every other session has been signed out' };
  },
);
