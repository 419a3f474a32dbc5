import { accountDeps } from '../../shared/adapters/accounts.js';
import { otpChecks } from '../../shared/adapters/otp-codes.js';
import { accountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { verifySignup } from '../../shared/domain/accounts/signup-activation.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { signInClient } from '../../shared/http/sign-in-client.js';
import { operation } from './verify-signup-otp.operation.js';

/**
 * POST /v1/auth/verify-signup-otp: activates the account and signs its inbox owner in; a phone
 * given at signup is then sent its code (queued).
 */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async (request) =>
  verifySignup(
    await accountDeps(),
    await otpChecks(),
    accountCodeQueue(),
    request.body,
    signInClient(request),
  ),
);
