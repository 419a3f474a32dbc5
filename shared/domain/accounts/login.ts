import { ServiceError } from '../errors.js';
import type { AccountDeps } from './deps.js';
import {
  hashPassword,
  needsRehash,
  verifyAgainstDummy,
  verifyPassword,
} from './password-hashing.js';
import { startSession, type TokenResponse } from './sessions.js';
import type { User } from './user.js';

/** Failed password checks allowed before the account is locked for a while. */
const freeFailures = 5;
/** The first lock; each further failure doubles it. */
const firstLockSeconds = 30;
/** The longest lock: an attacker can slow an account down, never shut it out for good. */
const maxLockSeconds = 15 * 60;

/** The lock that follows the `failures`-th consecutive failure (epoch ms; 0 for none). */
function lockAfter(failures: number, now: number): number {
  if (failures < freeFailures) return 0;
  const seconds = Math.min(maxLockSeconds, firstLockSeconds * 2 ** (failures - freeFailures));
  return now + seconds * 1000;
}

const invalidCredentials = () =>
  new ServiceError('invalid_credentials', 'The email or password is incorrect');

/** Refuses a password check while the account is locked, saying when to try again. */
function refuseWhileLocked(user: User, now: number): void {
  if (user.lockedUntil > now) {
    const retryAfterSeconds = Math.ceil((user.lockedUntil - now) / 1000);
    throw new ServiceError(
      'too_many_attempts',
      'Too many failed attempts for this account; try again later or reset the password',
      [],
      { retryAfterSeconds },
    );
  }
}

/**
 * Checks a user's password, counting a failure (and locking after too many). Used by login and by
 * changePassword, so a stolen access token cannot brute-force the current password either.
 */
export async function checkPassword(
  deps: AccountDeps,
  user: User,
  password: string,
): Promise<void> {
  const now = deps.clock.now();
  refuseWhileLocked(user, now);
  if (await verifyPassword(password, user.passwordHash)) return;
  // The count comes back from the atomic increment, so parallel guesses cannot all read "0 so far"
  // and slip past the lock; the lock is a second write, paid only once the free failures are used.
  const failures = await deps.users.recordFailedLogin(user.id);
  const lockedUntil = lockAfter(failures, now);
  if (lockedUntil > 0) await deps.users.lockLogin(user.id, lockedUntil);
  throw invalidCredentials();
}

/**
 * Email + password login. Unknown email and wrong password answer the same 401, and both spend
 * one Argon2 computation so timing does not tell them apart. Only the right password on an
 * unverified account learns 403 email_not_verified.
 * Round trips: 2 reads (email guard, account) + 1 transaction (session, refresh token, account).
 */
export async function login(
  deps: AccountDeps,
  input: { email: string; password: string },
): Promise<TokenResponse> {
  const user = await deps.users.findByEmail(input.email);
  if (user === undefined) {
    await verifyAgainstDummy(input.password);
    throw invalidCredentials();
  }
  await checkPassword(deps, user, input.password);
  if (!user.emailVerified) {
    throw new ServiceError(
      'email_not_verified',
      'Verify your email first: enter the code we sent, or ask for a new one',
    );
  }
  return startSession(deps, user, {
    clearFailures: true,
    checkedPasswordHash: user.passwordHash,
    upgradedPasswordHash: needsRehash(user.passwordHash)
      ? await hashPassword(input.password)
      : undefined,
  });
}
