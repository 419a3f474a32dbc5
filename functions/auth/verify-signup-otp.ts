import { accountDeps } from '../../shared/adapters/accounts.js';
import { otpChecks } from '../../shared/adapters/otp-codes.js';
import { verifySignup } from '../../shared/domain/accounts/signup.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { VerifySignupOtpRequest } from '../../shared/http/schemas/auth.js';

/** POST /v1/auth/verify-signup-otp: activates the account and signs it in. */
export const handler = apiHandler({ body: VerifySignupOtpRequest }, async ({ body }) =>
  verifySignup(await accountDeps(), await otpChecks(), body),
);
