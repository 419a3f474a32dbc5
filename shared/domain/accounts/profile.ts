import { ServiceError } from '../errors.js';
import type { AccountDeps } from './deps.js';
import type { ProfileChanges } from './ports.js';
import { sendWithoutTelling } from './send-without-telling.js';
import { type PublicUser, publicUser, type User } from './user.js';

/** What happened to a changed email or phone: it waits for its code. */
export interface PendingVerification {
  channel: 'email' | 'sms';
  target: string;
}

/** Sends the verification code of a new email or phone (the OTP engine). */
export type SendVerificationCode = (pending: PendingVerification, user: User) => Promise<void>;

export interface ProfileUpdateResult {
  user: PublicUser;
  /** The fields whose new value waits for its OTP (`email`, `phone_number`). */
  verification_required: string[];
}

/** The caller's own profile. Round trips: 1 read (after the session check). */
export async function getProfile(deps: AccountDeps, userId: string): Promise<PublicUser> {
  const user = await deps.users.get(userId);
  if (user === undefined) throw new ServiceError('invalid_token', 'The account no longer exists');
  return publicUser(user);
}

/**
 * Applies validated profile changes. Name, gender and online status: one UpdateItem. A new email
 * or phone: read, then one transaction that moves its uniqueness guard (409 conflict if taken)
 * and marks it unverified; then its code is sent. Unchanged values are no-ops.
 */
export async function updateProfile(
  deps: AccountDeps,
  userId: string,
  changes: ProfileChanges,
  sendCode: SendVerificationCode,
): Promise<ProfileUpdateResult> {
  if (changes.email === undefined && changes.phone === undefined) {
    const updated = await deps.users.update(undefined, userId, changes);
    return { user: publicUser(updated), verification_required: [] };
  }
  const current = await deps.users.get(userId);
  if (current === undefined) {
    throw new ServiceError('invalid_token', 'The account no longer exists');
  }
  const updated = await deps.users.update(current, userId, changes);
  const pending: PendingVerification[] = [];
  const required: string[] = [];
  if (updated.email !== current.email) {
    pending.push({ channel: 'email', target: updated.email });
    required.push('email');
  }
  if (updated.phone !== current.phone && updated.phone !== null) {
    pending.push({ channel: 'sms', target: updated.phone });
    required.push('phone_number');
  }
  // The change is committed: a cooldown on its code must not turn it into an error (the user
  // can ask for the code again with resendEmailOtp / resendMobileOtp).
  for (const item of pending) await sendWithoutTelling(() => sendCode(item, updated));
  return { user: publicUser(updated), verification_required: required };
}
