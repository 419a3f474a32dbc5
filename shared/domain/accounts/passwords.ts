import { ServiceError } from '../errors.js';
import type { AccountCheckDeps, AccountCodeDeps } from './deps.js';
import { checkCurrentPassword } from './login.js';
import { hashPassword } from './password-hashing.js';
import { accountOf } from './user.js';

/** docs/accounts.md, "Passwords": a password must not equal the account's email. */
export function refuseEmailAsPassword(password: string, email: string, field: string): void {
  if (password.trim().toLowerCase() === email) {
    throw new ServiceError('invalid_request', 'The password must not be the email address', [
      { field, message: 'must not be the email address' },
    ]);
  }
}

/**
 * Changes the password after checking the current one, ends every other session of the user (the
 * caller's own stays signed in) and tells the account's email. A wrong current password counts
 * toward the caller's login throttle. An account with no usable password (a contested signup's
 * activation) sets one without `currentPassword`: its session was opened by its inbox's code.
 * Round trips: 1 read (+ the throttle's, with a current password), 1 conditional write, 1 query +
 * batch deletes of the other sessions, 1 SendMessage.
 */
export async function changePassword(
  deps: AccountCodeDeps,
  caller: { userId: string; sessionId: string; source: string },
  input: { currentPassword?: string; newPassword: string },
): Promise<void> {
  const user = await accountOf(deps.users, caller.userId);
  refuseEmailAsPassword(input.newPassword, user.email, 'new_password');
  if (!user.passwordResetRequired) {
    if (input.currentPassword === undefined) throw currentPasswordRequired();
    if (input.newPassword === input.currentPassword) {
      throw new ServiceError(
        'invalid_request',
        'The new password must differ from the current one',
        [{ field: 'new_password', message: 'must differ from the current password' }],
      );
    }
    await checkCurrentPassword(deps, user, input.currentPassword, caller.source);
  }
  const newHash = await hashPassword(input.newPassword);
  if (!(await deps.users.replacePasswordHash(user.id, user.passwordHash, newHash))) {
    throw new ServiceError('conflict', 'The password was changed meanwhile; sign in again');
  }
  await Promise.all([
    deps.sessions.revokeAll(user.id, caller.sessionId),
    deps.codeQueue.request({ kind: 'notice', notice: 'password_changed', target: user.email }),
  ]);
}

/** A change of credentials asked without the current password (a stolen access token?). */
export const currentPasswordRequired = () =>
  new ServiceError('invalid_request', 'current_password is required for this change', [
    { field: 'current_password', message: 'is required' },
  ]);

/**
 * Sets a new password with the code from forgotPassword (10 minutes, single use), lifts every
 * login lock of the email, ends every session of the account and tells its email. A reset is a
 * recovery: whoever knew the old password may have asked for an email or phone change, or put
 * their own phone on the account, so the pending changes are dropped and the phone signs in by
 * SMS only once a signed-in session confirms it again (docs/accounts.md, "Password reset").
 * Round trips: the code's consumption + 2 reads + 1 conditional write + query/deletes of sessions
 * and of throttle records + 1 SendMessage.
 */
export async function resetPassword(
  deps: AccountCheckDeps,
  input: { email: string; otp: string; newPassword: string; source: string },
): Promise<void> {
  refuseEmailAsPassword(input.newPassword, input.email, 'new_password');
  // A reset that fails part-way (sessions not all ended) gives the code back: its retry does
  // the whole reset again rather than leaving the old sessions alive behind a spent code.
  const terms = { source: input.source };
  await deps.codes.verifyThen(
    'email',
    input.email,
    'password_reset',
    input.otp,
    async () => {
      const user = await deps.users.findByEmail(input.email);
      if (user === undefined) {
        throw new ServiceError('invalid_otp', 'The code is not valid for this email');
      }
      const newHash = await hashPassword(input.newPassword);
      if (!(await deps.users.recoverWithPassword(user.id, user.passwordHash, newHash))) {
        throw new ServiceError(
          'conflict',
          'The password was changed meanwhile; request a new code',
        );
      }
      await Promise.all([
        deps.sessions.revokeAll(user.id),
        deps.throttle.clear(input.email),
        deps.codeQueue.request({ kind: 'notice', notice: 'password_reset', target: user.email }),
      ]);
    },
    terms,
  );
}
