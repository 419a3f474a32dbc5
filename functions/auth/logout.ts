import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { bearerToken } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { logout } from '../../shared/domain/accounts/sessions.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './logout.operation.js';

/** POST /v1/auth/logout: ends the Bearer token's session if there is one; always succeeds. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ headers }) => {
    await logout(accountDependencies(), bearerToken(headers.authorization));
    return { message: 'Logged out' };
  },
);
