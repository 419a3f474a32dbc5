import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import type { CheckTerms, SecondFactorKey } from '../otp/engine.js';
import type { AccountCodeDeps, AccountDeps } from './deps.js';
import { checkCurrentPassword } from './login.js';
import { sha256 } from './mfa-challenge.js';
import { type SignedIn, startSession } from './sessions.js';
import { accountOf } from './user.js';

/**
 * The authenticator-app second factor (TOTP, RFC 6238: 30-second steps, 6 digits, one step of
 * drift either way) and its recovery codes (docs/accounts.md, "Second factor"). Once enabled, a
 * sign-in that proved the password or the phone answers a short-lived MFA ticket instead of
 * tokens; the ticket and a code of the app (or a recovery code) answer the tokens.
 */

/** Seconds an unconfirmed secret is kept: time to scan it and type the first code. */
export const enrolmentSeconds = 600;
const recoveryCodeCount = 10;
const stepSeconds = 30;

/** A recovery code as typed: case, spaces and dashes do not matter. */
const recoveryCodeHash = (code: string) => sha256(code.toLowerCase().replace(/[\s-]/g, ''));

/** Ten characters of the base32 alphabet (50 bits), shown as two groups of five. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const characters = Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]);
  return `${characters.slice(0, 5).join('')}-${characters.slice(5).join('')}`;
}

const totpOf = (secret: string, naming?: { issuer: string; label: string }) =>
  new TOTP({
    ...naming,
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: stepSeconds,
  });

/** The time step a code of `secret` is for at `now` (one step of drift either way), if any. */
function stepOf(secret: string, code: string, now: number): number | undefined {
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / 1000 / stepSeconds) + delta;
}

const invalidTicket = () =>
  new ServiceError('invalid_token', 'The MFA ticket is invalid or expired; sign in again');

/** The budgets a second factor's checks spend (the OTP engine's `guard`). */
export type SecondFactorGuard = (
  key: SecondFactorKey,
  terms: CheckTerms,
  matches: () => Promise<boolean>,
) => Promise<void>;

export interface MfaDeps extends AccountDeps {
  guard: SecondFactorGuard;
}

const factorKey = (userId: string): SecondFactorKey => ({
  channel: 'app',
  target: userId,
  purpose: 'mfa',
});

/** What shows the second factor: a code of the app, or one of the recovery codes. */
export type SecondFactorProof = { code: string } | { recoveryCode: string };

/**
 * Exchanges an MFA ticket and a proof of the second factor for the session the ticket's sign-in
 * asked for. A code is single use within its step (and no older step is accepted after it), a
 * recovery code once; every check spends the account's attempt budget of the caller's source
 * (5 per hour, as a code's), so whoever knows the password cannot guess the app's codes faster
 * than a code's. The ticket is single use too; a stale or unknown one answers invalid_token.
 */
export async function verifySecondFactor(
  deps: MfaDeps,
  input: { ticket: string; proof: SecondFactorProof; source: string },
): Promise<SignedIn> {
  const ticketHash = sha256(input.ticket);
  const ticket = await deps.secondFactors.ticket(ticketHash);
  const now = deps.clock.now();
  if (ticket === undefined || ticket.expiresAt <= now) throw invalidTicket();
  const { userId } = ticket;
  const [factor, user] = await Promise.all([
    deps.secondFactors.factor(userId),
    deps.users.get(userId),
  ]);
  // Removed since the ticket was issued (or the account is gone): the sign-in starts again.
  if (factor === undefined || user === undefined || !user.totpEnabled) throw invalidTicket();
  const { proof } = input;
  const kind = 'code' in proof ? 'totp' : 'recovery_code';
  try {
    await deps.guard(factorKey(userId), { source: input.source }, async () => {
      if ('recoveryCode' in proof) {
        return deps.secondFactors.useRecoveryCode(userId, recoveryCodeHash(proof.recoveryCode));
      }
      const step = stepOf(factor.secret, proof.code, now);
      return step !== undefined && (await deps.secondFactors.useStep(userId, step));
    });
  } catch (error) {
    metrics.count('MfaVerifications', { Outcome: 'refused', Factor: kind });
    throw error;
  }
  if (!(await deps.secondFactors.takeTicket(ticketHash))) throw invalidTicket();
  metrics.count('MfaVerifications', { Outcome: 'verified', Factor: kind });
  return startSession(deps, user, ticket.client, ticket.changes);
}

/** A new secret waiting for its first code, as the authenticator app takes it. */
export interface TotpEnrolment {
  secret: string;
  /** `otpauth://totp/…`, what the QR code holds. */
  uri: string;
  expiresIn: number;
}

const alreadyEnabled = () =>
  new ServiceError('conflict', 'An authenticator app is already set up; remove it first');

/**
 * Starts setting up an authenticator app: the current password first (a stolen access token
 * must not put an attacker's app on the account, which would lock the owner out), then a new
 * secret kept for ten minutes until its first code confirms it.
 */
export async function startTotpEnrolment(
  deps: AccountDeps,
  caller: { userId: string; source: string },
  currentPassword: string,
  /** The name the app shows beside the codes (TOTP_ISSUER). */
  issuer: string,
): Promise<TotpEnrolment> {
  const user = await accountOf(deps.users, caller.userId);
  await checkCurrentPassword(deps, user, currentPassword, caller.source);
  if (user.totpEnabled) throw alreadyEnabled();
  const secret = new Secret({ size: 20 }).base32;
  await deps.secondFactors.startEnrolment(
    user.id,
    secret,
    deps.clock.now() + enrolmentSeconds * 1000,
  );
  return {
    secret,
    uri: totpOf(secret, { issuer, label: user.email }).toString(),
    expiresIn: enrolmentSeconds,
  };
}

/**
 * Confirms the app with its first code (which then counts as used), enables the factor, and
 * answers the ten recovery codes — shown this once; only their hashes are kept. The owner is told
 * by email. A wrong code spends the attempt budget as at sign-in.
 */
export async function confirmTotp(
  deps: MfaDeps & AccountCodeDeps,
  caller: { userId: string; source: string },
  code: string,
): Promise<string[]> {
  const user = await accountOf(deps.users, caller.userId);
  if (user.totpEnabled) throw alreadyEnabled();
  const now = deps.clock.now();
  const enrolment = await deps.secondFactors.enrolment(user.id);
  if (enrolment === undefined || enrolment.expiresAt <= now) {
    throw new ServiceError(
      'not_found',
      'No authenticator app is being set up, or its setup expired; start again',
    );
  }
  const recoveryCodes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
  let enabled = false;
  await deps.guard(factorKey(user.id), { source: caller.source }, async () => {
    const step = stepOf(enrolment.secret, code, now);
    if (step === undefined) return false;
    enabled = await deps.secondFactors.enable(user.id, {
      secret: enrolment.secret,
      lastStep: step,
      recoveryCodeHashes: recoveryCodes.map(recoveryCodeHash),
    });
    return true;
  });
  // Another confirmation won the race (or the setup was started again meanwhile).
  if (!enabled) throw alreadyEnabled();
  await deps.codeQueue.request({ kind: 'notice', notice: 'totp_enabled', target: user.email });
  return recoveryCodes;
}

/**
 * Ten new recovery codes for the app set up, shown this once; the ones before stop working (a
 * user who has spent some, or fears they were seen). The current password first: a stolen access
 * token must not read fresh codes, each of which passes the second factor. The owner is told.
 */
export async function replaceRecoveryCodes(
  deps: AccountCodeDeps,
  caller: { userId: string; source: string },
  currentPassword: string,
): Promise<string[]> {
  const user = await accountOf(deps.users, caller.userId);
  await checkCurrentPassword(deps, user, currentPassword, caller.source);
  const recoveryCodes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
  if (
    !(await deps.secondFactors.replaceRecoveryCodes(user.id, recoveryCodes.map(recoveryCodeHash)))
  ) {
    throw new ServiceError('not_found', 'No authenticator app is set up');
  }
  await deps.codeQueue.request({
    kind: 'notice',
    notice: 'recovery_codes_replaced',
    target: user.email,
  });
  return recoveryCodes;
}

/**
 * Removes the authenticator app (and its recovery codes): the current password first, as for
 * setting one up. The owner is told by email. A password reset never does this by itself.
 */
export async function removeTotp(
  deps: AccountCodeDeps,
  caller: { userId: string; source: string },
  currentPassword: string,
): Promise<void> {
  const user = await accountOf(deps.users, caller.userId);
  await checkCurrentPassword(deps, user, currentPassword, caller.source);
  if (!(await deps.secondFactors.disable(user.id))) {
    throw new ServiceError('not_found', 'No authenticator app is set up');
  }
  await deps.codeQueue.request({ kind: 'notice', notice: 'totp_removed', target: user.email });
}
