import { ServiceError } from '../errors.js';
import type { AccountDeps } from './deps.js';
import { startSession, type TokenResponse } from './sessions.js';
import { type PublicUser, publicUser } from './user.js';

/**
 * What other areas (the OTP operations) may ask of accounts, without reaching into storage.
 * An account is "active" once its email is verified (`email_verified`).
 */
export interface AccountDirectory {
  /** The account that holds this E.164 phone, if any (one guard read + one account read). */
  findByPhone(phone: string): Promise<PublicUser | undefined>;
  /** The account that holds this lower-cased email, if any (two reads). */
  findByEmail(email: string): Promise<PublicUser | undefined>;
  /** Marks the phone verified if the account still holds it (one conditional write). */
  markPhoneVerified(userId: string, phone: string): Promise<boolean>;
  /** Marks the email verified if the account still holds it (one conditional write). */
  markEmailVerified(userId: string, email: string): Promise<boolean>;
  /**
   * Signs the user in after a proven login OTP: marks the phone verified and starts a session in
   * one transaction; returns the token-bearing data of contract.md. Throws conflict if the
   * account no longer holds the phone, invalid_token if it is gone.
   */
  signInWithPhone(userId: string, phone: string): Promise<TokenResponse>;
}

export function accountDirectory(deps: AccountDeps): AccountDirectory {
  return {
    async findByPhone(phone) {
      const userId = await deps.users.findIdByPhone(phone);
      const user = userId === undefined ? undefined : await deps.users.get(userId);
      return user?.phone === phone ? publicUser(user) : undefined;
    },
    async findByEmail(email) {
      const user = await deps.users.findByEmail(email);
      return user === undefined ? undefined : publicUser(user);
    },
    markPhoneVerified: (userId, phone) => deps.users.markPhoneVerified(userId, phone),
    markEmailVerified: (userId, email) => deps.users.markEmailVerified(userId, email),
    async signInWithPhone(userId, phone) {
      const user = await deps.users.get(userId);
      if (user === undefined) {
        throw new ServiceError('invalid_token', 'The account no longer exists');
      }
      return startSession(deps, user, { verifiedPhone: phone });
    },
  };
}
