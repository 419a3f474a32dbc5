import type { Clock } from '../clock.js';
import type { Mailer } from '../messages.js';
import type { AccountDirectory } from './directory.js';
import type { AccountCodes, SignupNotices } from './ports.js';
import { sendWithoutTelling } from './send-without-telling.js';

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
export async function followUpSignup(
  deps: SignupFollowUpDeps,
  email: string,
  source: string,
): Promise<void> {
  const holder = await deps.accounts.findByEmail(email);
  if (holder === undefined) return;
  if (!holder.emailVerified) {
    await sendWithoutTelling(() => deps.codes.send('email', email, 'signup', source));
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
