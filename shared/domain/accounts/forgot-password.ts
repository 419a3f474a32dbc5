import type { AccountDirectory } from './directory.js';
import type { AccountCodeQueue, AccountCodes, UserRepository } from './ports.js';
import { sendWithoutTelling } from './send-without-telling.js';

export interface ForgotPasswordResult {
  /** True when the email must be verified first (a verification code was sent instead). */
  verificationRequired: boolean;
  message: string;
}

/**
 * Asks for a reset code. The answer and the request's AWS calls are the same for every email:
 * two reads (the account's standing, in two reads whatever it is) and one queued message, in
 * parallel; the account-code worker issues and sends the code (`sendForgotPasswordCode`). Only an
 * unverified account is told that verification comes first (the spec asks for it, and signup
 * tells as much); an unknown email gets exactly the answer of a verified one.
 */
export async function forgotPassword(
  deps: { users: Pick<UserRepository, 'emailStanding'>; codeQueue: AccountCodeQueue },
  email: string,
  source: string,
): Promise<ForgotPasswordResult> {
  const [standing] = await Promise.all([
    deps.users.emailStanding(email),
    deps.codeQueue.request({ kind: 'forgot_password', target: email, source }),
  ]);
  if (standing === 'unverified') {
    return {
      verificationRequired: true,
      message:
        'This email is not verified yet: we sent a verification code. Verify it first, then reset the password',
    };
  }
  return {
    verificationRequired: false,
    message: 'If an account exists for this email, we sent it a code to reset the password',
  };
}

/**
 * The work behind forgotPassword, in the account-code worker: a `password_reset` code for a
 * verified account, a `signup` code for an unverified one, nothing for an unknown email. The
 * account is looked up again (it may have been verified since the request). Send limits are
 * absorbed, so a redelivered message within the 60 s cooldown sends nothing more.
 *
 * A pending signup is first marked as a recovery: whoever asks to recover an email may not be
 * whoever signed up with it (a stranger may have signed up with the victim's email and the
 * stranger's password), so its activation — with this code or any other — keeps only the email
 * and asks for a new password (docs/accounts.md, "Forgot password").
 */
export async function sendForgotPasswordCode(
  directory: Pick<AccountDirectory, 'findByEmail' | 'markSignupRecovery'>,
  codes: AccountCodes,
  email: string,
  source: string,
): Promise<void> {
  const user = await directory.findByEmail(email);
  if (user === undefined) return;
  if (!user.emailVerified) await directory.markSignupRecovery(user.id, email);
  const purpose = user.emailVerified ? 'password_reset' : 'signup';
  await sendWithoutTelling(() => codes.send('email', email, purpose, source));
}
