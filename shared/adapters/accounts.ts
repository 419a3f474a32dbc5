import type { AccountDeps } from '../domain/accounts/deps.js';
import { type AccountDirectory, accountDirectory } from '../domain/accounts/directory.js';
import { systemClock } from '../domain/clock.js';
import { tokenKeys } from './access-token-keys.js';
import { dynamoLoginThrottle } from './dynamo-login-throttle.js';
import { dynamoSessionRepository } from './dynamo-sessions.js';
import { dynamoUserRepository } from './dynamo-users.js';

/**
 * The account use-cases' dependencies on AWS (or the local stand-ins). Nothing is read here:
 * signing keys are fetched on first use, so a function holds only the secrets and settings its
 * route declares. No mailer: no request path sends email (the account-code worker does).
 */
const deps: AccountDeps = {
  users: dynamoUserRepository,
  sessions: dynamoSessionRepository,
  throttle: dynamoLoginThrottle,
  tokenKeys,
  clock: systemClock,
};

export async function accountDeps(): Promise<AccountDeps> {
  return deps;
}

/** Accounts as the OTP operations see them (docs/accounts.md, "For other engineers"). */
export async function accounts(): Promise<AccountDirectory> {
  return accountDirectory(deps);
}
