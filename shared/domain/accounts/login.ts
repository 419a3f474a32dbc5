import { ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import type { AccountDeps } from './deps.js';
import { isChallenge, type SignInOutcome, signInOrChallenge } from './mfa-challenge.js';
import {
  hashPassword,
  needsRehash,
  verifyAgainstDummy,
  verifyPassword,
} from './password-hashing.js';
import type { SignInClient } from './ports.js';
import type { User } from './user.js';

/** Failed password checks allowed from one source before it is locked out for a while. */
const freeFailures = 5;
/** The first lock; each further failure doubles it. */
const firstLockSeconds = 30;
/** The longest lock: an attacker can slow a source down, never shut it out for good. */
const maxLockSeconds = 15 * 60;

/** The lock that follows the `failures`-th consecutive failure (epoch ms; 0 for none). */
function lockAfter(failures: number, now: number): number {
  if (failures < freeFailures) return 0;
  const seconds = Math.min(maxLockSeconds, firstLockSeconds * 2 ** (failures - freeFailures));
  return now + seconds * 1000;
}

const invalidCredentials = () =>
  new ServiceError('invalid_credentials', 'The email or password is incorrect');

/**
 * Checks a password of `email` from `source`, whether or not an account holds the email
 * (`account` undefined) — with the same DynamoDB calls either way, locks included: the throttle
 * counts per email and source, never per account, so neither the answer nor the calls tell a
 * known email from an unknown one (docs/accounts.md, "Login"). A locked source is refused without
 * a hash; a wrong password (or none on the account) costs one Argon2 check, then one atomic count,
 * then the lock once the free failures are spent. Throws too_many_attempts or invalid_credentials.
 */
async function checkPasswordOf(
  deps: AccountDeps,
  email: string,
  account: Promise<User | undefined>,
  password: string,
  source: string,
): Promise<User> {
  const now = deps.clock.now();
  const [user, throttle] = await Promise.all([account, deps.throttle.read(email, source, now)]);
  if (throttle.lockedUntil > now) {
    throw new ServiceError(
      'too_many_attempts',
      'Too many failed attempts; try again later or reset the password',
      [],
      { retryAfterSeconds: Math.ceil((throttle.lockedUntil - now) / 1000), limit: 'login-lock' },
    );
  }
  const matches =
    user === undefined || user.passwordResetRequired
      ? await verifyAgainstDummy(password)
      : await verifyPassword(password, user.passwordHash);
  if (matches && user !== undefined) return user;
  // The count comes back from the atomic increment, so parallel guesses cannot all read "0 so far"
  // and slip past the lock; the lock is a second write, paid only once the free failures are used.
  const failures = await deps.throttle.recordFailure(email, source, now);
  const lockedUntil = lockAfter(failures, now);
  if (lockedUntil > 0) await deps.throttle.lock(email, source, lockedUntil);
  throw invalidCredentials();
}

/**
 * Checks the current password of a signed-in user (changePassword, an email or phone change), so
 * a stolen access token cannot change credentials, nor guess the password faster than login can.
 * Throws invalid_credentials naming `current_password`, or too_many_attempts.
 */
export async function checkCurrentPassword(
  deps: AccountDeps,
  user: User,
  password: string,
  source: string,
): Promise<void> {
  try {
    await checkPasswordOf(deps, user.email, Promise.resolve(user), password, source);
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'invalid_credentials') {
      throw new ServiceError('invalid_credentials', 'The current password is incorrect', [
        { field: 'current_password', message: 'is incorrect' },
      ]);
    }
    throw error;
  }
}

/** The Logins metric's outcome of each refusal login answers with. */
const loginOutcomes: Partial<Record<string, string>> = {
  invalid_credentials: 'failed',
  too_many_attempts: 'locked',
  email_not_verified: 'unverified',
};

/**
 * Email + password login. Unknown email and wrong password answer the same 401 after the same
 * calls and one Argon2 computation each; a lock answers the same 429 for both. Only the right
 * password on an unverified account learns 403 email_not_verified.
 * Round trips: 2 reads (email guard, account) beside 1 read (throttle) + 1 transaction (session,
 * refresh token, account, throttle cleared) — or, for an account with a second factor, 1 put of
 * the MFA ticket that stands for them until the second factor is shown (mfa-challenge.ts).
 */
export async function login(
  deps: AccountDeps,
  input: { email: string; password: string },
  client: SignInClient,
): Promise<SignInOutcome> {
  try {
    const signedIn = await passwordLogin(deps, input, client);
    metrics.count('Logins', { Outcome: isChallenge(signedIn) ? 'mfa_required' : 'ok' });
    return signedIn;
  } catch (error) {
    const outcome = error instanceof ServiceError ? loginOutcomes[error.code] : undefined;
    metrics.count('Logins', { Outcome: outcome ?? 'error' });
    throw error;
  }
}

async function passwordLogin(
  deps: AccountDeps,
  input: { email: string; password: string },
  client: SignInClient,
): Promise<SignInOutcome> {
  const user = await checkPasswordOf(
    deps,
    input.email,
    deps.users.findByEmail(input.email),
    input.password,
    client.source,
  );
  if (!user.emailVerified) {
    throw new ServiceError(
      'email_not_verified',
      'Verify your email first: enter the code we sent, or ask for a new one',
    );
  }
  return signInOrChallenge(deps, user, client, {
    clearThrottle: { email: input.email, source: client.source },
    checkedPasswordHash: user.passwordHash,
    upgradedPasswordHash: needsRehash(user.passwordHash)
      ? await hashPassword(input.password)
      : undefined,
  });
}
