import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { passkeyDependencies } from '../../shared/adapters/passkeys-wiring.js';
import { relyingParty } from '../../shared/config.js';
import { registrationOptions } from '../../shared/domain/accounts/passkey-ceremonies.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './passkey-registration-options.operation.js';

/** POST /v1/auth/passkeys/registration-options: the current password, then a ceremony's options. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  ({ principal, body, sourceIp }) =>
    registrationOptions(
      passkeyDependencies(),
      { userId: principal.userId, source: sourceIp },
      body.current_password,
      relyingParty(),
    ),
);
