import { createHash, randomBytes } from 'node:crypto';
import { metrics } from '../metrics.js';
import type { AccountDeps } from './deps.js';
import type { SignInChanges, SignInClient } from './ports.js';
import { type SignedIn, startSession } from './sessions.js';
import type { User } from './user.js';

/**
 * The step between a sign-in's first factor and its session, for an account with a second
 * factor (second-factor.ts): an MFA ticket that remembers the sign-in, and the store of second
 * factors and tickets.
 */

/** What the store keeps of an enabled second factor. */
export interface TotpFactor {
  /** Base32, as the authenticator app was given it. */
  secret: string;
  /** The last time step a code was accepted for: no code of it or before it is accepted again. */
  lastStep: number;
  /** SHA-256 of each unused recovery code (hex). */
  recoveryCodeHashes: string[];
}

/** A sign-in waiting for its second factor: who, from where, and what it proved. */
export interface MfaTicket {
  userId: string;
  client: SignInClient;
  /** Epoch ms. */
  expiresAt: number;
  /** What the sign-in that proved the first factor would have written with its session. */
  changes: Pick<
    SignInChanges,
    'clearThrottle' | 'checkedPasswordHash' | 'upgradedPasswordHash' | 'phone'
  >;
}

/**
 * Storage of second factors and MFA tickets. Each method is one read or one atomic write, so
 * single use holds under concurrency (shared/adapters/dynamo-second-factors.ts).
 */
export interface SecondFactorStore {
  /** Keeps a new secret for the user until `expiresAt` (replacing an unconfirmed one). */
  startEnrolment(userId: string, secret: string, expiresAt: number): Promise<void>;
  /** The unconfirmed secret, if one is kept (even past its expiry: the caller checks). */
  enrolment(userId: string): Promise<{ secret: string; expiresAt: number } | undefined>;
  /**
   * Enables the factor, all at once: stores it, marks the account, and forgets the enrolment —
   * only if the account exists, has none enabled, and the enrolment still holds `factor.secret`.
   */
  enable(userId: string, factor: TotpFactor): Promise<boolean>;
  /** The enabled factor, if any. */
  factor(userId: string): Promise<TotpFactor | undefined>;
  /** Records `step` as used, only if it is later than the last one used (false otherwise). */
  useStep(userId: string, step: number): Promise<boolean>;
  /**
   * Replaces the recovery codes of the app set up (by their hashes): the old ones stop working.
   * False when no app is set up.
   */
  replaceRecoveryCodes(userId: string, codeHashes: string[]): Promise<boolean>;
  /** Removes one recovery code's hash, only if it is still there (false otherwise). */
  useRecoveryCode(userId: string, codeHash: string): Promise<boolean>;
  /** Removes the factor and unmarks the account; false when none was enabled. */
  disable(userId: string): Promise<boolean>;
  /** Keeps a ticket under the hash of its text until it expires. */
  putTicket(ticketHash: string, ticket: MfaTicket): Promise<void>;
  ticket(ticketHash: string): Promise<MfaTicket | undefined>;
  /** Deletes the ticket, only if it is still there: its single use (false otherwise). */
  takeTicket(ticketHash: string): Promise<boolean>;
}

/** Seconds an MFA ticket is good for: time to open the app and type a code. */
export const mfaTicketSeconds = 300;

/** A sign-in that must still show its second factor. */
export interface MfaChallenge {
  mfaRequired: true;
  ticket: string;
  /** Seconds the ticket has left to live. */
  expiresIn: number;
}

export type SignInOutcome = SignedIn | MfaChallenge;

export const isChallenge = (outcome: SignInOutcome): outcome is MfaChallenge =>
  'mfaRequired' in outcome;

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Where a sign-in that proved its first factor goes: straight to a session when the account has
 * no second factor, else to an MFA ticket that remembers the sign-in (1 write).
 */
export async function signInOrChallenge(
  deps: AccountDeps,
  user: User,
  client: SignInClient,
  changes: MfaTicket['changes'],
): Promise<SignInOutcome> {
  if (!user.totpEnabled) return startSession(deps, user, client, changes);
  const ticket = `mfa_${randomBytes(32).toString('base64url')}`;
  await deps.secondFactors.putTicket(sha256(ticket), {
    userId: user.id,
    client,
    expiresAt: deps.clock.now() + mfaTicketSeconds * 1000,
    changes,
  });
  metrics.count('MfaChallenges', { Factor: 'totp' });
  return { mfaRequired: true, ticket, expiresIn: mfaTicketSeconds };
}
