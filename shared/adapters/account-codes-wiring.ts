import type { AccountCheckDeps, AccountCodeDeps } from '../domain/accounts/deps.js';
import type { AccountCodeQueue, UserRepository } from '../domain/accounts/ports.js';
import type { Clock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import { accountDependencies } from './accounts-wiring.js';
import { dynamoUserRepository } from './dynamo-users.js';
import { lazily } from './lazily.js';
import { otpChecks } from './otp-codes.js';
import { accountCodeQueue } from './sqs-account-code-queue.js';

/**
 * The accounts area's wiring for the use-cases that hand work to the account-code worker, and
 * those that consume an emailed code (accounts-wiring.ts says why it is a module of its own).
 * The queue and the OTP checks are reached when a use-case uses them, so a stand-in the local
 * runtime or a test installs later is the one used.
 */

/** The account-code queue, looked up at each request: the local runtime installs its own. */
const codeQueue: AccountCodeQueue = { request: (work) => accountCodeQueue().request(work) };

export interface AccountRequestDeps {
  users: UserRepository;
  clock: Clock;
  codeQueue: AccountCodeQueue;
}

/**
 * signup's and forgotPassword's: the accounts and the queue, no sessions and no token keys (their
 * bundles carry neither jose nor the session repository).
 */
export const accountRequestDependencies = /* @__PURE__ */ lazily(
  (): AccountRequestDeps => ({ users: dynamoUserRepository, clock: systemClock, codeQueue }),
);

/** For the use-cases that queue codes and notices for a signed-in account (passwords, profile). */
export const accountCodeDependencies = /* @__PURE__ */ lazily(
  (): AccountCodeDeps => ({ ...accountDependencies(), codeQueue }),
);

/** For those that also consume an emailed code (activation, password reset). */
export const accountCheckDependencies = /* @__PURE__ */ lazily(
  (): AccountCheckDeps => ({
    ...accountCodeDependencies(),
    get codes() {
      return otpChecks();
    },
  }),
);
