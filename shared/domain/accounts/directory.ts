import type { AccountDeps } from './deps.js';
import { type SignInOutcome, signInOrChallenge } from './mfa-challenge.js';
import type { PendingConfirmation, SignInClient } from './ports.js';
import { activationOf } from './signup-activation.js';
import { accountOf, type User } from './user.js';

/**
 * What other areas (the OTP operations) may ask of accounts, without reaching into storage.
 * An account is "active" once its email is verified (`emailVerified`).
 */
export interface AccountDirectory {
  /**
   * The account whose verified phone this E.164 number is, if any (one guard read + one read);
   * whether it signs in by SMS is `phoneSignsIn`'s to say.
   */
  findByPhone(phone: string): Promise<User | undefined>;
  /** The account that holds this lower-cased email, if any (two reads). */
  findByEmail(email: string): Promise<User | undefined>;
  /** The account with this id, if any (one read). */
  findById(userId: string): Promise<User | undefined>;
  /**
   * Activates the pending signup that holds this email, without signing in (verifyEmailOtp with
   * a signup code): contested signups lose their password as verifySignupOtp's do. False when no
   * pending signup holds it.
   */
  activatePendingSignup(email: string): Promise<boolean>;
  /**
   * Marks the pending signup as a recovery (forgot-password was asked for it): its activation
   * keeps only the email. Nothing for a verified account.
   */
  markSignupRecovery(userId: string, email: string): Promise<void>;
  /**
   * The account's phone signs in by SMS again after a password reset: a signed-in session of the
   * account confirmed it with a code sent after the reset. Nothing when it is not its phone.
   */
  confirmPhoneAgain(userId: string, phone: string): Promise<void>;
  /** Makes the account's pending email its verified email (its code was just verified). */
  confirmPendingEmail(userId: string, email: string): Promise<PendingConfirmation>;
  /** Makes the account's pending phone its verified phone (its code was just verified). */
  confirmPendingPhone(userId: string, phone: string): Promise<PendingConfirmation>;
  /**
   * Signs the user in after a proven login OTP to their verified phone; returns the session
   * signed in. Throws conflict if the account no longer holds the phone, invalid_token
   * if it is gone. Never marks a phone verified: only verifyMobileOtp does.
   */
  signInWithPhone(userId: string, phone: string, client: SignInClient): Promise<SignInOutcome>;
}

export function accountDirectory(deps: AccountDeps): AccountDirectory {
  return {
    async findByPhone(phone) {
      const userId = await deps.users.findIdByPhone(phone);
      const user = userId === undefined ? undefined : await deps.users.get(userId);
      return user?.phone === phone ? user : undefined;
    },
    async findByEmail(email) {
      return deps.users.findByEmail(email);
    },
    async findById(userId) {
      return deps.users.get(userId);
    },
    async activatePendingSignup(email) {
      // Twice at most: a signup contesting the account meanwhile fails the first write.
      for (let pass = 0; pass < 2; pass++) {
        const user = await deps.users.findByEmail(email);
        if (user === undefined || user.emailVerified) return false;
        if (await deps.users.activate(user.id, activationOf(user))) return true;
      }
      return false;
    },
    markSignupRecovery: (userId, email) => deps.users.markSignupRecovery(userId, email),
    confirmPhoneAgain: (userId, phone) => deps.users.confirmPhoneAgain(userId, phone),
    async confirmPendingEmail(userId, email) {
      const user = await deps.users.get(userId);
      if (user?.pendingEmail !== email) return 'stale';
      return deps.users.confirmPendingEmail(user, email);
    },
    async confirmPendingPhone(userId, phone) {
      const user = await deps.users.get(userId);
      if (user?.pendingPhone !== phone) return 'stale';
      return deps.users.confirmPendingPhone(user, phone);
    },
    async signInWithPhone(userId, phone, client) {
      const user = await accountOf(deps.users, userId);
      return signInOrChallenge(deps, user, client, { phone });
    },
  };
}
