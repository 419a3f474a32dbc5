import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { accountCodeDependencies } from '../../shared/adapters/account-codes-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { passkeyDependencies } from '../../shared/adapters/passkeys-wiring.js';
import { relyingParty } from '../../shared/config.js';
import { addPasskey } from '../../shared/domain/accounts/passkey-ceremonies.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { passkeyView } from '../../shared/http/views/accounts.js';
import { operation } from './add-passkey.operation.js';

/** POST /v1/auth/passkeys: the browser's answer verified, the passkey stored; the owner is told. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body }) =>
    passkeyView(
      await addPasskey(
        { ...passkeyDependencies(), ...accountCodeDependencies() },
        { userId: principal.userId },
        // The request schema checked its shape; the library checks every value it reads.
        body.credential as unknown as RegistrationResponseJSON,
        relyingParty(),
      ),
    ),
);
