import { accountRequestDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { forgotPassword } from '../../shared/domain/accounts/forgot-password.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { codeRequestView } from '../../shared/http/views/accounts.js';
import { operation } from './forgot-password.operation.js';

/**
 * POST /v1/auth/forgot-password: queues the reset code's work (the account-code worker sends it),
 * with the same AWS calls for every email.
 */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, sourceIp }) =>
    codeRequestView(await forgotPassword(accountRequestDependencies(), body.email, sourceIp)),
);
