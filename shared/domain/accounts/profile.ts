import { ServiceError } from '../errors.js';
import type { AccountCodeDeps } from './deps.js';
import { checkCurrentPassword } from './login.js';
import { currentPasswordRequired } from './passwords.js';
import type { ProfileChanges } from './ports.js';
import { accountOf, type User } from './user.js';

export interface ProfileUpdateResult {
  user: User;
  /** The fields whose new value waits for its OTP (`email`, `phone_number`). */
  verificationRequired: ('email' | 'phone')[];
}

export interface ProfileUpdate {
  name?: string;
  gender?: string;
  onlineStatus?: boolean;
  email?: string;
  phone?: string;
  /** Required when the email or phone changes. */
  currentPassword?: string;
}

/**
 * Applies validated profile changes in one UpdateItem. A new email or phone needs the current
 * password (a stolen access token cannot take the account over) and only waits as pending: the
 * old value stays the sign-in identity until the new one's code is verified (verifyEmailOtp,
 * verifyMobileOtp), and the pending value reserves nothing. Its code is queued, bound to this
 * account; an email change is told to the old address. A phone a verified account holds is a 409
 * at once (phone registration is public); an email taken meanwhile fails at its verification.
 * Round trips: 1 UpdateItem; with an email or phone, +1 read, the password check, 1 guard read
 * for a phone, 1–3 SendMessage.
 */
export async function updateProfile(
  deps: AccountCodeDeps,
  caller: { userId: string; source: string },
  update: ProfileUpdate,
): Promise<ProfileUpdateResult> {
  const simple: ProfileChanges = {
    name: update.name,
    gender: update.gender,
    onlineStatus: update.onlineStatus,
  };
  if (update.email === undefined && update.phone === undefined) {
    const updated = await deps.users.update(caller.userId, simple);
    return { user: updated, verificationRequired: [] };
  }
  const current = await accountOf(deps.users, caller.userId);
  const email = update.email !== current.email ? update.email : undefined;
  const phone = update.phone !== current.phone ? update.phone : undefined;
  if (email !== undefined || phone !== undefined) {
    if (update.currentPassword === undefined) throw currentPasswordRequired();
    await checkCurrentPassword(deps, current, update.currentPassword, caller.source);
  }
  if (phone !== undefined) {
    const holder = await deps.users.findIdByPhone(phone);
    if (holder !== undefined && holder !== current.id) {
      throw new ServiceError('conflict', 'This phone number is already in use', [
        { field: 'phone_number', message: 'is already in use by another account' },
      ]);
    }
  }
  const updated = await deps.users.update(caller.userId, {
    ...simple,
    pendingEmail: email,
    pendingPhone: phone,
  });
  const required: ProfileUpdateResult['verificationRequired'] = [];
  const work: Promise<void>[] = [];
  if (email !== undefined) {
    required.push('email');
    work.push(
      deps.codeQueue.request({
        kind: 'resend_email',
        target: email,
        subject: current.id,
        source: caller.source,
      }),
      deps.codeQueue.request({
        kind: 'notice',
        notice: 'email_change_requested',
        target: current.email,
        detail: email,
      }),
    );
  }
  if (phone !== undefined) {
    required.push('phone');
    work.push(
      deps.codeQueue.request({
        kind: 'resend_mobile',
        target: phone,
        subject: current.id,
        source: caller.source,
      }),
    );
  }
  await Promise.all(work);
  return { user: updated, verificationRequired: required };
}
