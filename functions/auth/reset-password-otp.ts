import { accountCheckDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { resetPassword } from '../../shared/domain/accounts/passwords.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './reset-password-otp.operation.js';

/** POST /v1/auth/reset-password-otp: new password with the emailed code; every session ends. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, sourceIp }) => {
    await resetPassword(accountCheckDependencies(), {
      email: body.email,
      otp: body.otp,
      newPassword: body.new_password,
      source: sourceIp,
    });
    return { message: 'Password reset; sign in with the new password' };
  },
);
