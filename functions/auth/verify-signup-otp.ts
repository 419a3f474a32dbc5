import { accountCheckDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { verifySignup } from '../../shared/domain/accounts/signup-activation.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { signInClient } from '../../shared/http/sign-in-client.js';
import { activationView } from '../../shared/http/views/accounts.js';
import { operation } from './verify-signup-otp.operation.js';

/**
 * POST /v1/auth/verify-signup-otp: activates the account and signs its inbox owner in; a phone
 * given at signup is then sent its code (queued).
 */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async (request) =>
  activationView(
    await verifySignup(accountCheckDependencies(), request.body, signInClient(request)),
  ),
);
