import { accountDeps } from '../../shared/adapters/accounts.js';
import { otpCodes } from '../../shared/adapters/otp-codes.js';
import { forgotPassword } from '../../shared/domain/accounts/passwords.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { ForgotPasswordRequest } from '../../shared/http/schemas/auth.js';

/** POST /v1/auth/forgot-password: emails a reset code (or a verification code first). */
export const handler = apiHandler({ body: ForgotPasswordRequest }, async ({ body }) =>
  forgotPassword(await accountDeps(), await otpCodes(), body.email),
);
