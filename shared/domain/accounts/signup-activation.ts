import { log } from '../../log.js';
import { Refusal, ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import type { AccountCheckDeps, AccountDeps } from './deps.js';
import { type Activation, dropsSignup, type SignInClient } from './ports.js';
import { type SignedIn, startSession } from './sessions.js';
import type { User } from './user.js';

/*
 * Apart from signup.ts, which hashes passwords: activating an account hashes nothing, and the
 * functions that activate (verifySignupOtp, the OTP operations through the directory) carry no
 * password hashing.
 */

/**
 * What activating a pending signup writes: the email verified and, when the signer may not be
 * whoever activates — other signups met it on this email (contested), or forgot-password was
 * asked for it (a recovery) — no password, no pending phone and no name a stranger gave: the
 * inbox owner is signed in and chooses a password (docs/accounts.md, "Signup collisions",
 * "Forgot password").
 */
export function activationOf(user: User): Activation {
  // Signups that gave different names leave none of them: any could be a stranger's. A recovery
  // keeps none either: the one signup may be a stranger's.
  const keepsName = new Set(user.signupNames).size <= 1 && !user.signupRecovery;
  return {
    email: user.email,
    contested: user.signupContested,
    recovery: user.signupRecovery,
    name: keepsName ? user.name : user.email.slice(0, user.email.indexOf('@')),
  };
}

/** The token pair of an activation, and whether the owner must now choose a password. */
export type ActivationResponse = SignedIn & { passwordResetRequired: boolean };

/**
 * Activates the account with the emailed code and signs its inbox owner in. A contested or
 * recovered signup comes out with no usable password (`passwordResetRequired: true`). A phone given at signup is
 * then sent its verification code (queued, bound to this account). The code is put back if the
 * activation fails for a reason a retry may fix (`verifyThen`), so the retry can use it.
 * Round trips: the code's consumption (docs/otp.md) + 2 reads + 1 transaction (+1 SendMessage).
 */
export async function verifySignup(
  deps: AccountCheckDeps,
  input: { email: string; otp: string },
  client: SignInClient,
): Promise<ActivationResponse> {
  // The caller's counting address: its wrong codes are its own (docs/otp.md).
  const source = client.source;
  const { activated, phone } = await deps.codes.verifyThen(
    'email',
    input.email,
    'signup',
    input.otp,
    () => activate(deps, input.email, client),
    { source },
  );
  metrics.count('Activations', {});
  if (phone !== undefined) {
    // The activation is stored and its tokens must reach the client: a phone code that cannot be
    // queued is logged, and the user asks for it again (resendMobileOtp).
    await deps.codeQueue
      .request({
        kind: 'resend_mobile',
        target: phone,
        subject: activated.user.id,
        source,
      })
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
  // Twice at most: a signup contesting the account (or a forgot-password) between its read and
  // its activation fails the activation's condition, and the second pass activates it as such.
  for (let pass = 0; pass < 2; pass++) {
    const user = await deps.users.findByEmail(email);
    if (user === undefined || user.emailVerified) {
      throw new ServiceError('invalid_otp', 'The code is not valid for this email');
    }
    const activation = activationOf(user);
    const dropped = dropsSignup(activation);
    try {
      const signedIn = await startSession(deps, user, client, { activation });
      return {
        activated: { ...signedIn, passwordResetRequired: dropped },
        phone: dropped ? undefined : (user.pendingPhone ?? undefined),
      };
    } catch (error) {
      if (!(error instanceof Refusal && error.reason === 'accountChanged') || pass > 0) throw error;
    }
  }
  throw new ServiceError('conflict', 'The account changed during activation; try again');
}
