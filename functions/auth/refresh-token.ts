import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { refreshSession } from '../../shared/domain/accounts/sessions.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { signedInView } from '../../shared/http/views/accounts.js';
import { operation } from './refresh-token.operation.js';

/** POST /v1/auth/refresh-token: rotates the refresh token, returns a new pair. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, hit }) =>
    signedInView(await refreshSession(accountDependencies(), body.refresh_token, hit)),
);
