import type { AccountDeps } from '../domain/accounts/deps.js';
import { type AccountDirectory, accountDirectory } from '../domain/accounts/directory.js';
import { systemClock } from '../domain/clock.js';
import { tokenKeys, tokenVerifier } from './access-token-keys.js';
import { dynamoLoginThrottle } from './dynamo-login-throttle.js';
import { dynamoSecondFactors } from './dynamo-second-factors.js';
import { dynamoSessionRepository } from './dynamo-sessions.js';
import { dynamoUserRepository } from './dynamo-users.js';
import { lazily } from './lazily.js';

/**
 * The accounts area's wiring: what its use-cases work with on AWS (or the local stand-ins). Each
 * getter builds its object on first call and returns the same one after. Nothing is read when
 * they are built — the signing keys are loaded when a token is first issued, the published keys
 * when one is first checked — so a function holds only the secrets and settings its route
 * declares.
 *
 * The parts that queue codes or check them live in account-codes-wiring.ts: this module imports
 * no SQS client and no OTP engine, so login and the session operations, which import it, carry
 * neither (esbuild keeps what a module's top level builds, even unused — a codec's schemas).
 */

/** Sessions, passwords and profiles. No mailer: no request path sends email (the worker does). */
export const accountDependencies = /* @__PURE__ */ lazily(
  (): AccountDeps => ({
    users: dynamoUserRepository,
    sessions: dynamoSessionRepository,
    throttle: dynamoLoginThrottle,
    secondFactors: dynamoSecondFactors,
    tokenKeys,
    tokenVerifier,
    clock: systemClock,
  }),
);

/** Accounts as the OTP operations see them (docs/accounts.md, "For other engineers"). */
export const accountDirectoryDependency = /* @__PURE__ */ lazily(
  (): AccountDirectory => accountDirectory(accountDependencies()),
);
