import { accountDeps } from '../../shared/adapters/accounts.js';
import { otpCodes } from '../../shared/adapters/otp-codes.js';
import { signup } from '../../shared/domain/accounts/signup.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { SignupRequest } from '../../shared/http/schemas/phone-requests.js';

/** POST /v1/auth/signup: an unverified account and an emailed code (201). */
export const handler = apiHandler({ body: SignupRequest, successStatus: 201 }, async ({ body }) =>
  signup(await accountDeps(), await otpCodes(), body),
);
