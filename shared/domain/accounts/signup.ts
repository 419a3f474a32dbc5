import { log } from '../../log.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { Mailer } from '../messages.js';
import type { AccountDeps } from './deps.js';
import type { AccountDirectory } from './directory.js';
import { hashPassword } from './password-hashing.js';
import { refuseEmailAsPassword } from './passwords.js';
import type {
  AccountCodeQueue,
  AccountCodes,
  Activation,
  SignInClient,
  SignupNotices,
} from './ports.js';
import { sendWithoutTelling } from './send-without-telling.js';
import { startSession, type TokenResponse } from './sessions.js';
import { newId, type User } from './user.js';

export interface SignupResult {
  email: string;
  verification_required: true;
  message: string;
}

/**
 * Registers an unverified account; its code is sent by the account-code worker
 * (`followUpSignup`). An email that already has an account gets the same 201 and body after the
 * same AWS calls (no enumeration, by answer nor by timing — docs/accounts.md). A second signup
 * for a pending (never verified) email writes none of its credentials: it marks the pending
 * account contested, so whoever activates it with the inbox's code gets it with no password
 * anyone else knows (`verifySignup`). A phone waits as pending, reserving nothing, until the
 * owner verifies it after activation.
 * Round trips, whatever the email: 1 transaction (account + email guard + phone check), then in
 * parallel 1 conditional UpdateItem and 1 SQS SendMessage.
 */
export async function signup(
  deps: Pick<AccountDeps, 'users' | 'clock'>,
  queue: AccountCodeQueue,
  input: { name: string; email: string; phone?: string; password: string },
): Promise<SignupResult> {
  refuseEmailAsPassword(input.password, input.email, 'password');
  // Hash before knowing whether the email exists: both paths then take the same time.
  const passwordHash = await hashPassword(input.password);
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
  // The same write for every email: on a fresh account its condition refuses it (the holder is
  // the signup itself), as it refuses a verified holder; only a pending holder is marked
  // contested. Skipping it on a fresh email would make a taken email measurably slower.
  const holderId = creation.outcome === 'created' ? user.id : creation.holderId;
  try {
    await Promise.all([
      deps.users.contestPendingSignup(holderId, user.email, input.name, user.id),
      queue.request({ kind: 'signup', target: user.email }),
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
  return {
    email: user.email,
    verification_required: true,
    message: 'We sent a 6-digit code to this email; enter it to activate the account',
  };
}

/** How long one "someone tried to sign up with your email" notice covers further attempts. */
export const signupNoticeWindowMs = 24 * 60 * 60 * 1000;

/** What the account-code worker needs to follow a signup up. */
export interface SignupFollowUpDeps {
  accounts: Pick<AccountDirectory, 'findByEmail'>;
  codes: AccountCodes;
  signupNotices: SignupNotices;
  mailer: Mailer;
  clock: Clock;
}

/**
 * The work behind signup, in the account-code worker. The account holding the email is looked up
 * (2 reads): unverified (fresh or pending) gets a signup code — limits absorbed, so the 60 s
 * cooldown makes a redelivery or 20 racing signups send one code; verified gets the notice, at
 * most once per email per `signupNoticeWindowMs`; no account (it cannot be, short of a deletion)
 * gets nothing.
 */
export async function followUpSignup(deps: SignupFollowUpDeps, email: string): Promise<void> {
  const holder = await deps.accounts.findByEmail(email);
  if (holder === undefined) return;
  if (!holder.email_verified) {
    await sendWithoutTelling(() => deps.codes.send('email', email, 'signup'));
    return;
  }
  const now = deps.clock.now();
  const token = await deps.signupNotices.reserve(email, now, now + signupNoticeWindowMs);
  if (token === undefined) return;
  try {
    await deps.mailer.send({
      to: email,
      subject: 'Someone tried to sign up with your email',
      text: 'Someone tried to create an account with this email, which already has one. If it was you, log in or reset your password. Otherwise you can ignore this message.',
      html: '<p>Someone tried to create an account with this email, which already has one. If it was you, log in or reset your password. Otherwise you can ignore this message.</p>',
    });
  } catch (error) {
    // Unsent: give the window back so the redelivery of this message sends it.
    await deps.signupNotices.release(email, token);
    throw error;
  }
}

/**
 * What activating a pending signup writes: the email verified and, when other signups met it on
 * this email (contested), no password, no pending phone and no name a stranger gave — the inbox
 * owner is signed in and chooses a password (docs/accounts.md, "Signup collisions").
 */
export function activationOf(user: User): Activation {
  // Signups that gave different names leave none of them: any could be a stranger's.
  const name =
    new Set(user.signupNames).size > 1 ? user.email.slice(0, user.email.indexOf('@')) : user.name;
  return { email: user.email, contested: user.signupContested, name };
}

/** The token pair of an activation, and whether the owner must now choose a password. */
export type ActivationResponse = TokenResponse & { password_reset_required: boolean };

/**
 * Activates the account with the emailed code and signs its inbox owner in. A contested signup
 * comes out with no usable password (`password_reset_required: true`). A phone given at signup is
 * then sent its verification code (queued, bound to this account). The code is put back if the
 * activation fails for a reason a retry may fix (`verifyThen`), so the retry can use it.
 * Round trips: the code's consumption (docs/otp.md) + 2 reads + 1 transaction (+1 SendMessage).
 */
export async function verifySignup(
  deps: AccountDeps,
  codes: Pick<AccountCodes, 'verifyThen'>,
  queue: AccountCodeQueue,
  input: { email: string; otp: string },
  client: SignInClient,
): Promise<ActivationResponse> {
  const { activated, phone } = await codes.verifyThen(
    'email',
    input.email,
    'signup',
    input.otp,
    () => activate(deps, input.email, client),
  );
  if (phone !== undefined) {
    // The activation is stored and its tokens must reach the client: a phone code that cannot be
    // queued is logged, and the user asks for it again (resendMobileOtp).
    await queue
      .request({ kind: 'resend_mobile', target: phone, subject: activated.user.id })
      .catch((error: unknown) => log.warn('phone code not queued after activation', { error }));
  }
  return activated;
}

/** The activation itself: the session, and the pending phone that now gets its code, if any. */
async function activate(
  deps: AccountDeps,
  email: string,
  client: SignInClient,
): Promise<{ activated: ActivationResponse; phone?: string }> {
  // Twice at most: a signup contesting the account between its read and its activation fails
  // the activation's condition, and the second pass activates it as contested.
  for (let pass = 0; pass < 2; pass++) {
    const user = await deps.users.findByEmail(email);
    if (user === undefined || user.emailVerified) {
      throw new ServiceError('invalid_otp', 'The code is not valid for this email');
    }
    const activation = activationOf(user);
    try {
      const signedIn = await startSession(deps, user, client, { activation });
      return {
        activated: { ...signedIn, password_reset_required: activation.contested },
        phone: activation.contested ? undefined : (user.pendingPhone ?? undefined),
      };
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === 'conflict') || pass > 0) throw error;
    }
  }
  throw new ServiceError('conflict', 'The account changed during activation; try again');
}
