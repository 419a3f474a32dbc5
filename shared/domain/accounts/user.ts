import { randomBytes } from 'node:crypto';
import { ServiceError } from '../errors.js';
import type { UserRepository } from './ports.js';

/**
 * An account as the domain sees it. Emails are lower-cased, phones E.164.
 *
 * `email` and `phone` are the account's proven identifiers: the email its inbox owner verified
 * (or, while `emailVerified` is false, the email of a signup awaiting its code), and the phone
 * verified by an SMS code. A new email or phone waits in `pendingEmail` / `pendingPhone` until
 * its code is verified; a pending value reserves nothing and grants nothing (docs/accounts.md,
 * "Identity lifecycle").
 */
export interface User {
  id: string;
  name: string;
  email: string;
  /** The verified phone, or null. */
  phone: string | null;
  pendingEmail: string | null;
  pendingPhone: string | null;
  /** One of the documented values (docs/accounts.md), or null when not given. */
  gender: string | null;
  onlineStatus: boolean;
  emailVerified: boolean;
  /** PHC string (password-hashing.ts); never leaves the service. Empty when there is none. */
  passwordHash: string;
  /**
   * The account has no usable password: its activation met signups with different credentials,
   * so neither signer's password was kept. The owner sets one (changePassword without the
   * current password) or resets it.
   */
  passwordResetRequired: boolean;
  /** A pending signup that another signup for the same email met (signup.ts). */
  signupContested: boolean;
  /**
   * Forgot-password was asked for this pending signup: whoever asked may not be whoever signed
   * up, so its activation keeps only the email (forgot-password.ts).
   */
  signupRecovery: boolean;
  /**
   * The password was reset since the phone was last confirmed: whoever knew the old password may
   * have put their own phone there, so it signs nobody in by SMS until a signed-in session
   * confirms it again with a new code (`phoneSignsIn`).
   */
  phoneConfirmationRequired: boolean;
  /**
   * An authenticator app is set up: a sign-in answers an MFA ticket until one of its codes (or a
   * recovery code) is shown (second-factor.ts).
   */
  totpEnabled: boolean;
  /** The names the signups of a pending account gave (one while it is uncontested). */
  signupNames: string[];
  /** ISO 8601. */
  createdAt: string;
}

/**
 * Whether the account's phone signs it in by SMS: a phone its owner verified, on an active
 * account, and not waiting to be confirmed again since a password reset.
 */
export const phoneSignsIn = (user: User): boolean =>
  user.emailVerified && user.phone !== null && !user.phoneConfirmationRequired;

/**
 * What the API shows of an account: the `user` of every answer that carries one (no hash, no
 * signup state). A refresh answers it from the copy its token's item holds, which its rotation
 * holds to the account (dynamo-sessions.ts).
 */
export type PublicUser = Pick<
  User,
  | 'id'
  | 'name'
  | 'email'
  | 'phone'
  | 'pendingEmail'
  | 'pendingPhone'
  | 'gender'
  | 'onlineStatus'
  | 'emailVerified'
  | 'phoneConfirmationRequired'
  | 'totpEnabled'
  | 'createdAt'
>;

/** `prefix_` + 128 random bits, base64url: unguessable, and safe inside keys and tokens. */
export const newId = (prefix: 'usr' | 'ses'): string =>
  `${prefix}_${randomBytes(16).toString('base64url')}`;

/** What a signed-in caller whose account was deleted meanwhile is answered. */
export const accountGone = () => new ServiceError('invalid_token', 'The account no longer exists');

/** The account of a signed-in caller, read again (1 read); invalid_token when it is gone. */
export async function accountOf(users: UserRepository, userId: string): Promise<User> {
  const user = await users.get(userId);
  if (user === undefined) throw accountGone();
  return user;
}
