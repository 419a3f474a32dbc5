import { accountDeps } from '../../shared/adapters/accounts.js';
import { otpChecks } from '../../shared/adapters/otp-codes.js';
import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { resetPassword } from '../../shared/domain/accounts/passwords.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './reset-password-otp.operation.js';

/** POST /v1/auth/reset-password-otp: new password with the emailed code; every session ends. */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async ({ body }) => {
  await resetPassword(await accountDeps(), await otpChecks(), accountCodeQueue(), {
    email: body.email,
    otp: body.otp,
    newPassword: body.new_password,
  });
  return { message: 'Password reset; sign in with the new password' };
});
