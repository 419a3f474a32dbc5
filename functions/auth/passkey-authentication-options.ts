import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { passkeyDependencies } from '../../shared/adapters/passkeys-wiring.js';
import { relyingParty } from '../../shared/config.js';
import { authenticationOptions } from '../../shared/domain/accounts/passkey-ceremonies.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './passkey-authentication-options.operation.js';

/** POST /v1/auth/passkeys/authentication-options: a sign-in ceremony's options. */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, () =>
  authenticationOptions(passkeyDependencies(), relyingParty()),
);
