import { createHmac, randomInt } from 'node:crypto';
import { log } from '../../log.js';
import type { Clock } from '../clock.js';
import { isDefinitive, ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import { type PendingHit, type RateLimitDecision, routeLimited } from '../rate-limit.js';

/**
 * The one OTP engine of the service (contract.md, "OTPs"). Every code — sign-up, email and phone
 * verification, password reset, SMS login, generic checks — is issued and consumed here, so the
 * rules below hold for all of them. docs/otp.md describes it for callers.
 */

import type { OtpPurpose } from './purposes.js';

export type OtpChannel = 'email' | 'sms';

/**
 * Which code: one live code per channel + target (email or E.164 phone) + purpose, and per
 * subject for a purpose keyed on it (`otpKey`).
 */
export interface OtpKey {
  channel: OtpChannel;
  target: string;
  purpose: OtpPurpose;
  /** Set only for a purpose keyed on its subject: the user whose code this alone is. */
  subject?: string;
}

/**
 * Purposes whose codes are their subject's alone: a generic code confirms a number for the
 * signed-in user who asked for it. The subject is part of the key (and of the digest), so another
 * user holding the code verifies nothing, and users never supersede each other's codes, start
 * each other's cooldown or spend each other's attempts. The other purposes store their subject
 * with the code and answer it from `verify` (`StoredOtp.subject`).
 */
const keyedOnSubject: readonly OtpPurpose[] = ['generic'];

/** The key of a code sent to `target` for `purpose`, proving it for `subject`. */
export const otpKey = (
  channel: OtpChannel,
  target: string,
  purpose: OtpPurpose,
  subject?: string,
): OtpKey =>
  keyedOnSubject.includes(purpose)
    ? { channel, target, purpose, subject }
    : { channel, target, purpose };

export interface OtpPolicy {
  /** Seconds a code stays valid, per channel. @default email 600, sms 300 */
  lifetimeSeconds: Record<OtpChannel, number>;
  /** Verify attempts (right or wrong) per key within `attemptWindowSeconds`. @default 5 */
  maxAttempts: number;
  /** How long a spent attempt counts, from the first attempt of the window. @default 3600 */
  attemptWindowSeconds: number;
  /**
   * The window of the purposes that recover an account, shorter: a stranger who spends the
   * budget of the owner's reset code must not keep the owner from resetting for longer than this
   * (contract.md, "Identity lifecycle"). @default 900 for password_reset
   */
  recoveryAttemptWindowSeconds: number;
  /** Seconds between two codes for one key. @default 60 */
  cooldownSeconds: number;
  /** Codes per channel + target in one clock hour, all purposes together. @default 5 */
  sendsPerHour: number;
}

export const defaultOtpPolicy: OtpPolicy = {
  lifetimeSeconds: { email: 600, sms: 300 },
  maxAttempts: 5,
  attemptWindowSeconds: 3600,
  recoveryAttemptWindowSeconds: 900,
  cooldownSeconds: 60,
  sendsPerHour: 5,
};

/** A code as stored: never the code itself, only its keyed digest. Times are epoch ms. */
export interface StoredOtp {
  codeHash: string;
  issuedAt: number;
  expiresAt: number;
  /** Whom the code proves the target for (a user id), when the issuer named one. */
  subject?: string;
}

export type IssueOutcome =
  | { issued: true }
  /** The key had a code less than the cooldown ago; `issuedAt` of that code when known. */
  | { issued: false; refusedBy: 'cooldown'; lastIssuedAt: number | undefined }
  | { issued: false; refusedBy: 'hourly_cap' }
  /** The attempt budget is spent: a new code could not be verified anyway. */
  | { issued: false; refusedBy: 'attempts'; windowEndsAt: number | undefined };

export type AttemptReservation =
  /** `last`: this attempt spends the budget's last one (a wrong code then burns the code). */
  | { allowed: true; last: false }
  | { allowed: true; last: true; windowEndsAt: number }
  | { allowed: false; windowEndsAt: number }
  /** The target's per-minute verification limit refused first (its hit records it too). */
  | { allowed: false; targetLimited: RateLimitDecision };

export type ConsumeOutcome =
  | { outcome: 'consumed'; otp: StoredOtp }
  | { outcome: 'mismatch'; otp: StoredOtp }
  | { outcome: 'none' };

/** A consumption that cleared the budget in the same write, without reading the code back. */
export type ClearingConsumeOutcome =
  | { outcome: 'consumed' }
  /** The code is the one given, but past its expiry (it stays, and never verifies). */
  | { outcome: 'expired' }
  | { outcome: 'mismatch'; otp: StoredOtp }
  | { outcome: 'none' };

/**
 * Storage of codes. Each method is one atomic conditional write (or one read), so the rules hold
 * under concurrency: the DynamoDB adapter (shared/adapters/dynamo-otp-store.ts) implements it.
 */
export interface OtpStore {
  /**
   * Stores `otp` as the key's live code (superseding the previous one) only if, all at once: the
   * previous code was issued at or before `cooldownEdge`; the target has fewer than `sendsPerHour`
   * sends in the hour starting at `hourStart` (epoch s), counting this one; and the key's attempt
   * budget is not spent.
   */
  issue(
    key: OtpKey,
    otp: StoredOtp,
    limits: {
      cooldownEdge: number;
      hourStart: number;
      sendsPerHour: number;
      maxAttempts: number;
      now: number;
    },
  ): Promise<IssueOutcome>;
  /**
   * Spends one attempt of the key's budget, opening a new window (ending at `windowEndsAt`) when
   * none is open at `now`; refused when `maxAttempts` are already spent in the open window. With
   * `targetHit`, the same write counts the target's per-minute hit, refused at its limit.
   */
  reserveAttempt(
    key: OtpKey,
    budget: { maxAttempts: number; now: number; windowEndsAt: number },
    targetHit?: PendingHit,
  ): Promise<AttemptReservation>;
  /**
   * Takes back a code that was never sent, all at once: deletes it if it is still the live code
   * with `codeHash`, and removes its send from the target's hour starting at `hourStart`. A code
   * superseded meanwhile is left alone, and so is the count.
   */
  withdraw(key: OtpKey, codeHash: string, hourStart: number): Promise<void>;
  /**
   * Puts back a consumed code as it was, unless a code was issued for the key since (which then
   * stays the live one).
   */
  restore(key: OtpKey, otp: StoredOtp): Promise<void>;
  /** Deletes the live code if its digest is `codeHash` (single use); else reports what is there. */
  consume(key: OtpKey, codeHash: string): Promise<ConsumeOutcome>;
  /**
   * Like consume, and forgets the key's attempt budget in the same write, for a caller that does
   * not need the code's subject back: a code past its expiry at `now` is left in place.
   */
  consumeClearing(key: OtpKey, codeHash: string, now: number): Promise<ClearingConsumeOutcome>;
  /** Deletes the live code if it is still the one with `codeHash` (burnt by wrong guesses). */
  burn(key: OtpKey, codeHash: string): Promise<void>;
  /** Forgets the attempt budget of the key (after a success). */
  clearAttempts(key: OtpKey): Promise<void>;
  /** The subject of the key's stored code (even expired or consumed), if it named one. */
  lastSubject(key: OtpKey): Promise<string | undefined>;
  /** Of the given purposes, the one whose stored code (even expired) was issued last. */
  latestPurpose(
    channel: OtpChannel,
    target: string,
    purposes: readonly OtpPurpose[],
  ): Promise<OtpPurpose | undefined>;
}

export interface IssuedCode {
  /** The 6 digits, to be sent to the target and then forgotten. */
  code: string;
  /** Epoch ms. */
  issuedAt: number;
  /** Epoch ms. */
  expiresAt: number;
  lifetimeSeconds: number;
}

const secondsUntil = (epochMs: number, now: number) =>
  Math.max(1, Math.ceil((epochMs - now) / 1000));

export class OtpEngine {
  private readonly policy: OtpPolicy;

  constructor(
    private readonly store: OtpStore,
    private readonly clock: Clock,
    /**
     * Server-side secret: without it a stolen table does not give the codes away. Asked for when
     * a code is first hashed, so the engine can be built before the secret is read.
     */
    private readonly pepper: () => Promise<string>,
    policy: Partial<OtpPolicy> = {},
  ) {
    this.policy = { ...defaultOtpPolicy, ...policy };
  }

  lifetimeSeconds(channel: OtpChannel): number {
    return this.policy.lifetimeSeconds[channel];
  }

  /**
   * A new code for the key, superseding the previous one; `subject` (a user id) is whom it proves
   * the target for, answered by `verify`. Throws rate_limited (with retryAfterSeconds) during the
   * cooldown or over the hourly cap, and too_many_attempts while the attempt budget is spent.
   * Round trips: 1 transaction (+1 read to time a cooldown refusal).
   */
  async issue(key: OtpKey, subject?: string): Promise<IssuedCode> {
    const now = this.clock.now();
    // randomInt draws without modulo bias from the CSPRNG.
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const lifetimeSeconds = this.lifetimeSeconds(key.channel);
    const expiresAt = now + lifetimeSeconds * 1000;
    const nowSeconds = Math.floor(now / 1000);
    const hourStart = nowSeconds - (nowSeconds % 3600);
    const codeHash = await this.digest(key, code);
    const outcome = await this.store.issue(
      key,
      { codeHash, issuedAt: now, expiresAt, subject },
      {
        cooldownEdge: now - this.policy.cooldownSeconds * 1000,
        hourStart,
        sendsPerHour: this.policy.sendsPerHour,
        maxAttempts: this.policy.maxAttempts,
        now,
      },
    );
    if (outcome.issued) return { code, issuedAt: now, expiresAt, lifetimeSeconds };
    switch (outcome.refusedBy) {
      case 'cooldown':
        throw new ServiceError(
          'rate_limited',
          'A code was sent moments ago; wait before asking again',
          [],
          {
            retryAfterSeconds: secondsUntil(
              (outcome.lastIssuedAt ?? now) + this.policy.cooldownSeconds * 1000,
              now,
            ),
            limit: 'otp-cooldown',
          },
        );
      case 'hourly_cap':
        throw new ServiceError(
          'rate_limited',
          `At most ${this.policy.sendsPerHour} codes an hour can be sent to one address`,
          [],
          {
            retryAfterSeconds: secondsUntil((hourStart + 3600) * 1000, now),
            limit: 'otp-hourly-cap',
          },
        );
      case 'attempts':
        throw new ServiceError('too_many_attempts', 'Too many wrong codes; try again later', [], {
          retryAfterSeconds: secondsUntil(
            outcome.windowEndsAt ?? now + this.attemptWindowSeconds(key.purpose) * 1000,
            now,
          ),
          limit: 'otp-attempts',
        });
    }
  }

  /**
   * Takes back an issued code whose message could not be sent (SES or SNS failing): it no longer
   * verifies, and neither holds the cooldown nor counts against the target's hourly cap — so the
   * sender's retry (the client's, or the queue's redelivery) issues and sends a fresh one at once
   * instead of being refused for a code nobody got. Round trips: 1 transaction.
   */
  async withdraw(key: OtpKey, issued: IssuedCode): Promise<void> {
    const issuedSeconds = Math.floor(issued.issuedAt / 1000);
    await this.store.withdraw(
      key,
      await this.digest(key, issued.code),
      issuedSeconds - (issuedSeconds % 3600),
    );
  }

  /**
   * Consumes the key's code if `code` is it. Every call first spends one attempt of the budget,
   * so no more than `maxAttempts` guesses are ever compared per window, however many arrive at
   * once; the fifth wrong one burns the code. Throws invalid_otp, otp_expired or
   * too_many_attempts (429). Answers the code's subject, if its issuer named one.
   *
   * `targetHit` is the request's hit on its target's per-minute verification limit: counted in
   * the attempt's reservation (rate_limited when the limit refuses).
   * Round trips: success 3 (reserve, consume, clear budget); wrong 2.
   */
  async verify(key: OtpKey, code: string, targetHit?: PendingHit): Promise<{ subject?: string }> {
    const consumed = await this.counted(key, () => this.consume(key, code, targetHit));
    return { subject: consumed.subject };
  }

  /**
   * Consumes the key's code as `verify` does, then runs `effect` — what the code proves: an
   * activation, a sign-in, a reset — with its subject. If the effect fails for a reason a retry
   * may fix (anything not definitive: storage throttled or down, a queue failing), the code is
   * put back as it was, so the client's retry with the same code finds it: a code is never spent
   * on a request that did not happen. A ServiceError or an adapter's Refusal (`isDefinitive`)
   * leaves it consumed.
   * Round trips: verify's, then the effect's (+1 conditional put when the code goes back).
   */
  async verifyThen<T>(
    key: OtpKey,
    code: string,
    effect: (proof: { subject?: string }) => Promise<T>,
    targetHit?: PendingHit,
  ): Promise<T> {
    const consumed = await this.counted(key, () => this.consume(key, code, targetHit));
    try {
      return await effect({ subject: consumed.subject });
    } catch (error) {
      if (!isDefinitive(error)) {
        await this.store
          .restore(key, consumed)
          .catch((restoring: unknown) =>
            log.warn('consumed otp not restored after its effect failed', { error: restoring }),
          );
      }
      throw error;
    }
  }

  /** Runs one verification, counting its outcome (the OtpVerifications metric). */
  private async counted<T>(key: OtpKey, verification: () => Promise<T>): Promise<T> {
    try {
      const verified = await verification();
      metrics.count('OtpVerifications', { Outcome: 'verified', Channel: key.channel });
      return verified;
    } catch (error) {
      const outcome = error instanceof ServiceError ? verifyOutcomes[error.code] : undefined;
      metrics.count('OtpVerifications', { Outcome: outcome ?? 'error', Channel: key.channel });
      throw error;
    }
  }

  /** The single use of a code: answers it as stored once it is consumed. */
  private async consume(
    key: OtpKey,
    code: string,
    targetHit: PendingHit | undefined,
  ): Promise<StoredOtp> {
    const now = this.clock.now();
    // Hashed first: a pepper that cannot be read fails the request before an attempt is spent.
    const codeHash = await this.digest(key, code);
    const reservation = await this.reserve(key, now, targetHit);
    // The digest is compared inside DynamoDB's condition: only keyed digests meet, so timing
    // says nothing about the code, and the delete is the single use (one winner).
    const result = await this.store.consume(key, codeHash);
    if (result.outcome === 'consumed') {
      // TTL deletes lazily: a code past its expiry may still be stored.
      if (result.otp.expiresAt <= now) throw expired();
      try {
        await this.store.clearAttempts(key);
      } catch (error) {
        // The code is consumed and the caller proven: a budget left in place only ends with its
        // window, which is no reason to fail the verification.
        log.warn('otp attempt budget not cleared', { error });
      }
      return result.otp;
    }
    return this.refuse(key, result, reservation, now);
  }

  /**
   * Like verify, for a caller that needs no subject back and has nothing left to do once the code
   * is consumed (a generic code, whose subject is in its key): the consumption clears the budget
   * in the same transaction, and nothing could fail after it that would call for the code back.
   * Round trips: 2 (reserve, consume and clear), a wrong code included.
   */
  async check(key: OtpKey, code: string, targetHit?: PendingHit): Promise<void> {
    return this.counted(key, async () => {
      const now = this.clock.now();
      const codeHash = await this.digest(key, code);
      const reservation = await this.reserve(key, now, targetHit);
      const result = await this.store.consumeClearing(key, codeHash, now);
      if (result.outcome === 'consumed') return;
      if (result.outcome === 'expired') throw expired();
      return this.refuse(key, result, reservation, now);
    });
  }

  private async reserve(
    key: OtpKey,
    now: number,
    targetHit: PendingHit | undefined,
  ): Promise<{ last: false } | { last: true; windowEndsAt: number }> {
    const reservation = await this.store.reserveAttempt(
      key,
      {
        maxAttempts: this.policy.maxAttempts,
        now,
        windowEndsAt: now + this.attemptWindowSeconds(key.purpose) * 1000,
      },
      targetHit,
    );
    if (reservation.allowed) return reservation;
    if ('targetLimited' in reservation) {
      throw routeLimited(reservation.targetLimited, targetHit?.window.scope ?? 'otp-target');
    }
    throw this.tooManyAttempts(reservation.windowEndsAt, now);
  }

  /** The answer to a code that did not verify (wrong, expired, none pending). */
  private async refuse(
    key: OtpKey,
    result: { outcome: 'mismatch'; otp: StoredOtp } | { outcome: 'none' },
    reservation: { last: false } | { last: true; windowEndsAt: number },
    now: number,
  ): Promise<never> {
    if (result.outcome === 'mismatch') {
      if (result.otp.expiresAt <= now) throw expired();
      if (reservation.last) {
        await this.store.burn(key, result.otp.codeHash);
        throw this.tooManyAttempts(reservation.windowEndsAt, now);
      }
    }
    if (reservation.last) throw this.tooManyAttempts(reservation.windowEndsAt, now);
    // One answer for a wrong code and for no code: telling them apart would reveal that a code
    // is pending, and so that an account exists for the address.
    throw new ServiceError('invalid_otp', 'The code is incorrect or no longer valid');
  }

  /** Whom the key's last code was issued for, if its issuer named someone (1 read). */
  lastSubject(key: OtpKey): Promise<string | undefined> {
    return this.store.lastSubject(key);
  }

  /** Of `purposes`, the one whose code for this target was sent last (1 read). */
  latestPurpose(
    channel: OtpChannel,
    target: string,
    purposes: readonly OtpPurpose[],
  ): Promise<OtpPurpose | undefined> {
    return this.store.latestPurpose(channel, target, purposes);
  }

  /**
   * HMAC-SHA256 bound to channel, target, purpose and (for a purpose keyed on it) subject: a code
   * never verifies anywhere else. A key without a subject keeps the digest of before subjects.
   */
  private async digest(key: OtpKey, code: string): Promise<string> {
    const subject = key.subject === undefined ? '' : `|${key.subject}`;
    return createHmac('sha256', await this.pepper())
      .update(`${key.channel}|${key.target}|${key.purpose}${subject}|${code}`)
      .digest('base64url');
  }

  private attemptWindowSeconds(purpose: OtpPurpose): number {
    return purpose === 'password_reset'
      ? this.policy.recoveryAttemptWindowSeconds
      : this.policy.attemptWindowSeconds;
  }

  private tooManyAttempts(windowEndsAt: number, now: number): ServiceError {
    return new ServiceError(
      'too_many_attempts',
      'Too many wrong codes; request a new code later',
      [],
      { retryAfterSeconds: secondsUntil(windowEndsAt, now), limit: 'otp-attempts' },
    );
  }
}

/** The OtpVerifications metric's outcome of each refusal `verify` answers with. */
const verifyOutcomes: Partial<Record<string, string>> = {
  invalid_otp: 'invalid',
  otp_expired: 'expired',
  too_many_attempts: 'too_many_attempts',
};

const expired = () => new ServiceError('otp_expired', 'The code has expired; request a new one');
