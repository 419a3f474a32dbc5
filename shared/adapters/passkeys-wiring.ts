import type { PasskeyDeps } from '../domain/accounts/passkeys.js';
import { accountDependencies } from './accounts-wiring.js';
import { dynamoPasskeys } from './dynamo-passkeys.js';
import { lazily } from './lazily.js';

/** The passkey use-cases' wiring: the accounts and the passkeys on DynamoDB. */
export const passkeyDependencies = /* @__PURE__ */ lazily(
  (): PasskeyDeps => ({ ...accountDependencies(), passkeys: dynamoPasskeys }),
);
