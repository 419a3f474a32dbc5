import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { passkeyDependencies } from '../../shared/adapters/passkeys-wiring.js';
import { listPasskeys } from '../../shared/domain/accounts/passkeys.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { passkeyView } from '../../shared/http/views/accounts.js';
import { operation } from './list-passkeys.operation.js';

/** GET /v1/auth/passkeys: the caller's passkeys. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal }) =>
    (await listPasskeys(passkeyDependencies(), principal.userId)).map(passkeyView),
);
