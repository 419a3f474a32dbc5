import { log } from '../../log.js';
import { ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import type { AccountCodeDeps } from './deps.js';
import { hashAlongside, hashPassword } from './password-hashing.js';
import { refuseEmailAsPassword } from './passwords.js';
import { newId, type User } from './user.js';

export interface SignupResult {
  email: string;
  verificationRequired: true;
  message: string;
}

/**
 * Registers an unverified account; its code is sent by the account-code worker
 * (`followUpSignup`). An email that already has an account gets the same 201 and body after the
 * same AWS calls (no enumeration, by answer nor by timing — docs/accounts.md). A second signup
 * for a pending (never verified) email writes none of its credentials: with a password that
 * does not verify against the pending one it marks the pending account contested, so whoever
 * activates it with the inbox's code gets it with no password anyone else knows
 * (`verifySignup`); with the same password it is the same signer again, and changes nothing. A
 * phone waits as pending, reserving nothing, until the owner verifies it after activation.
 * Round trips, whatever the email: 2 reads (the email's holder, as findByEmail), 1 transaction
 * (account + email guard + phone check), then in parallel 1 conditional UpdateItem and 1 SQS
 * SendMessage; one Argon2 computation.
 */
export async function signup(
  deps: Pick<AccountCodeDeps, 'users' | 'clock' | 'codeQueue'>,
  input: { name: string; email: string; phone?: string; password: string },
  /**
   * The request's counting address, which the code's sends are counted for; a caller without one
   * is `unknown`, as the HTTP layer names it.
   */
  source = 'unknown',
): Promise<SignupResult> {
  refuseEmailAsPassword(input.password, input.email, 'password');
  // One Argon2 computation whatever the email: against the pending signup's hash (its salt and
  // parameters) it is also the check of a repeat, else a fresh hash; the same time either way.
  const holder = await deps.users.signupHolder(input.email);
  const { hash: passwordHash, matches: samePassword } =
    holder?.pendingHash === undefined
      ? { hash: await hashPassword(input.password), matches: false }
      : await hashAlongside(input.password, holder.pendingHash);
  const user: User = {
    id: newId('usr'),
    name: input.name,
    email: input.email,
    phone: null,
    pendingEmail: null,
    pendingPhone: input.phone ?? null,
    gender: null,
    onlineStatus: false,
    emailVerified: false,
    passwordHash,
    passwordResetRequired: false,
    signupContested: false,
    signupRecovery: false,
    phoneConfirmationRequired: false,
    totpEnabled: false,
    signupNames: [input.name],
    createdAt: new Date(deps.clock.now()).toISOString(),
  };
  const creation = await deps.users.create(user);
  if (creation.outcome === 'phone_taken') {
    // Phone registration is public anyway (verifyPhoneAccount), so this answer leaks nothing new.
    throw new ServiceError('conflict', 'This phone number is already registered', [
      { field: 'phone', message: 'is already registered to another account' },
    ]);
  }
  const holderId = creation.outcome === 'created' ? user.id : creation.holderId;
  // A repeat by the pending signup's own signer (a form submitted twice, a retried request) is
  // no contest. A holder that appeared, or changed, since the read is counted as another signer.
  const sameSigner = samePassword && holderId === holder?.userId;
  try {
    await Promise.all([
      // The same write for every email: refused by its condition on the signup's own fresh
      // account (the holder is the signup itself), on a verified holder, and on a repeat (the
      // holder named as its own contestant); only another signer marks a pending holder
      // contested. Skipping it on a fresh email would make a taken one measurably slower.
      deps.users.contestPendingSignup(
        holderId,
        user.email,
        input.name,
        sameSigner ? holderId : user.id,
      ),
      deps.codeQueue.request({ kind: 'signup', target: user.email, source }),
    ]);
  } catch (error) {
    // The client is told the signup failed, so it must not half exist: a fresh account whose
    // code was not queued is taken back, and the client's retry is a signup like the first
    // (left in place, the retry would meet it as someone else's and contest it).
    if (creation.outcome === 'created') {
      await deps.users
        .withdrawSignup(user.id, user.email)
        .catch((withdrawal: unknown) =>
          log.warn('failed signup not withdrawn', { error: withdrawal }),
        );
    }
    throw error;
  }
  if (creation.outcome === 'created') metrics.count('Signups', {});
  return {
    email: user.email,
    verificationRequired: true,
    message: 'We sent a 6-digit code to this email; enter it to activate the account',
  };
}
