import type { EmailMessage, Mailer } from '../messages.js';
import type { SecurityNotice } from './ports.js';

/**
 * The security notices of docs/accounts.md ("Identity lifecycle"): what changed, when nothing else
 * would tell the owner, and what to do if it was not them. Sent by the account-code worker.
 */

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const ifNotYou =
  'If this was not you, reset your password at once (forgot password) and sign out every session.';

function wordingOf(notice: SecurityNotice, detail: string | undefined) {
  switch (notice) {
    case 'password_changed':
      return {
        subject: 'Your password was changed',
        lines: [
          'The password of your account was changed, and every other session was signed out.',
          ifNotYou,
        ],
      };
    case 'password_reset':
      return {
        subject: 'Your password was reset',
        lines: [
          'The password of your account was reset with a code sent to this address, and every session was signed out.',
          'Signing in by SMS is off until you confirm your phone number again: sign in with the new password, ask for a code to your phone and enter it. Email and phone changes asked for before the reset were cancelled.',
          ifNotYou,
        ],
      };
    case 'email_change_requested':
      return {
        subject: 'An email change was requested for your account',
        lines: [
          `Someone signed in to your account asked to change its email to ${detail ?? 'another address'}. This address stays the account's email until the new one is confirmed with the code sent to it.`,
          ifNotYou,
        ],
      };
    case 'totp_enabled':
      return {
        subject: 'An authenticator app was set up for your account',
        lines: [
          'Signing in to your account now also asks for a code from an authenticator app, or for one of the recovery codes shown when it was set up.',
          ifNotYou,
        ],
      };
    case 'totp_removed':
      return {
        subject: 'The authenticator app was removed from your account',
        lines: [
          'Signing in to your account no longer asks for a code from an authenticator app.',
          ifNotYou,
        ],
      };
    case 'recovery_codes_replaced':
      return {
        subject: 'New recovery codes were made for your account',
        lines: [
          'The recovery codes of your authenticator app were replaced: the earlier ones no longer work.',
          ifNotYou,
        ],
      };
    case 'passkey_added':
      return {
        subject: 'A passkey was added to your account',
        lines: ['A new passkey can now sign in to your account without its password.', ifNotYou],
      };
    case 'passkey_removed':
      return {
        subject: 'A passkey was removed from your account',
        lines: [
          'One of the passkeys of your account was removed; it no longer signs in.',
          ifNotYou,
        ],
      };
    case 'phone_changed':
      return {
        subject: 'A phone number was added to your account',
        lines: [
          'A new phone number was confirmed for your account; it can now receive sign-in codes.',
          ifNotYou,
        ],
      };
  }
}

export function noticeEmail(
  to: string,
  notice: SecurityNotice,
  detail: string | undefined,
): EmailMessage {
  const { subject, lines } = wordingOf(notice, detail);
  return {
    to,
    subject,
    text: lines.join('\n\n'),
    html: lines.map((line) => `<p>${escapeHtml(line)}</p>`).join(''),
  };
}

/** Sends one notice; a failure is thrown, so the queue retries it. */
export function sendNotice(
  mailer: Mailer,
  work: { target: string; notice: SecurityNotice; detail?: string },
): Promise<void> {
  return mailer.send(noticeEmail(work.target, work.notice, work.detail));
}
