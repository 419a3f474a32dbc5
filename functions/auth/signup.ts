import { accountRequestDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { signup } from '../../shared/domain/accounts/signup.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { codeRequestView } from '../../shared/http/views/accounts.js';
import { operation } from './signup.operation.js';

/**
 * POST /v1/auth/signup: an unverified account (201); the code's work is queued (the account-code
 * worker sends it), with the same AWS calls for a fresh and a taken email.
 */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, sourceIp }) =>
    codeRequestView(await signup(accountRequestDependencies(), body, sourceIp)),
);
