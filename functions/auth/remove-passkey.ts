import { accountCodeDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { passkeyDependencies } from '../../shared/adapters/passkeys-wiring.js';
import { removePasskey } from '../../shared/domain/accounts/passkeys.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './remove-passkey.operation.js';

/** DELETE /v1/auth/passkeys/{id}: one of the caller's passkeys removed; the owner is told. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) => {
    await removePasskey(
      { ...passkeyDependencies(), ...accountCodeDependencies() },
      principal.userId,
      params.id,
    );
    return { id: params.id, removed: true as const };
  },
);
