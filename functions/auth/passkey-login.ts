import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { passkeyDependencies } from '../../shared/adapters/passkeys-wiring.js';
import { relyingParty } from '../../shared/config.js';
import { passkeySignIn } from '../../shared/domain/accounts/passkey-ceremonies.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { signInClient } from '../../shared/http/sign-in-client.js';
import { signedInView } from '../../shared/http/views/accounts.js';
import { operation } from './passkey-login.operation.js';

/** POST /v1/auth/passkeys/login: a passkey's signature → the token pair. */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async (request) =>
  signedInView(
    await passkeySignIn(
      passkeyDependencies(),
      // The request schema checked its shape; the library checks every value it reads.
      request.body.credential as unknown as AuthenticationResponseJSON,
      signInClient(request),
      relyingParty(),
    ),
  ),
);
