import { ServiceError } from '../errors.js';
import type { AccountDeps } from './deps.js';
import { hashPassword } from './password-hashing.js';
import { refuseEmailAsPassword } from './passwords.js';
import type { AccountCodes } from './ports.js';
import { sendWithoutTelling } from './send-without-telling.js';
import { startSession, type TokenResponse } from './sessions.js';
import { newId, type User } from './user.js';

export interface SignupResult {
  email: string;
  verification_required: true;
  message: string;
}

/**
 * Registers an unverified account and emails it a code. An email that already has an account gets
 * the same 201 and body (no enumeration): a verified owner is told by email that someone tried;
 * an unverified one gets a new code, and the latest signup's name and password replace the
 * pending ones (only whoever reads the inbox can activate it).
 * Round trips: 1 transaction (account + email guard + phone guard), + 2 reads on an existing email.
 */
export async function signup(
  deps: AccountDeps,
  codes: AccountCodes,
  input: { name: string; email: string; phone?: string; password: string },
): Promise<SignupResult> {
  refuseEmailAsPassword(input.password, input.email, 'password');
  // Hash before knowing whether the email exists: both paths then take the same time.
  const passwordHash = await hashPassword(input.password);
  const user: User = {
    id: newId('usr'),
    name: input.name,
    email: input.email,
    phone: input.phone ?? null,
    gender: null,
    onlineStatus: false,
    emailVerified: false,
    phoneVerified: false,
    passwordHash,
    createdAt: new Date(deps.clock.now()).toISOString(),
    failedLogins: 0,
    lockedUntil: 0,
  };
  const outcome = await deps.users.create(user);
  if (outcome === 'phone_taken') {
    // Phone registration is public anyway (verifyPhoneAccount), so this answer leaks nothing new.
    throw new ServiceError('conflict', 'This phone number is already registered', [
      { field: 'phone', message: 'is already registered to another account' },
    ]);
  }
  if (outcome === 'created') {
    // Limits absorbed here too: a fresh and a taken email must never answer differently.
    await sendWithoutTelling(() => codes.send('email', user.email, 'signup'));
  } else {
    const existing = await deps.users.findByEmail(user.email);
    if (existing !== undefined && !existing.emailVerified) {
      await deps.users.replacePendingSignup(existing.id, input.name, passwordHash);
      await sendWithoutTelling(() => codes.send('email', user.email, 'signup'));
    } else if (existing !== undefined) {
      await deps.mailer.send({
        to: existing.email,
        subject: 'Someone tried to sign up with your email',
        text: 'Someone tried to create an account with this email, which already has one. If it was you, log in or reset your password. Otherwise you can ignore this message.',
        html: '<p>Someone tried to create an account with this email, which already has one. If it was you, log in or reset your password. Otherwise you can ignore this message.</p>',
      });
    }
  }
  return {
    email: user.email,
    verification_required: true,
    message: 'We sent a 6-digit code to this email; enter it to activate the account',
  };
}

/**
 * Activates the account with the emailed code and signs it in.
 * Round trips: the code's consumption (docs/otp.md) + 2 reads + 1 transaction.
 */
export async function verifySignup(
  deps: AccountDeps,
  codes: AccountCodes,
  input: { email: string; otp: string },
): Promise<TokenResponse> {
  await codes.verify('email', input.email, 'signup', input.otp);
  const user = await deps.users.findByEmail(input.email);
  if (user === undefined) {
    throw new ServiceError('invalid_otp', 'The code is not valid for this email');
  }
  return startSession(deps, user, { verifiedEmail: user.email, clearFailures: true });
}
