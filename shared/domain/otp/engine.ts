import { createHmac, randomInt } from 'node:crypto';
import { log } from '../../log.js';
import type { Clock } from '../clock.js';
import { isDefinitive, ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import { type PendingHit, type RateLimitDecision, routeLimited } from '../rate-limit.js';

/**
 * The one OTP engine of the service (docs/otp.md, "The engine"). Every code — sign-up, email and
 * phone verification, password reset, SMS login, generic checks — is issued and consumed here, so the
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

/**
 * An account's second factor (its authenticator app's codes and its recovery codes): not issued
 * here, but its checks spend the same budgets as a code's, keyed on the account.
 */
export interface SecondFactorKey {
  channel: 'app';
  /** The account's id. */
  target: string;
  purpose: 'mfa';
  subject?: undefined;
}

/** What an attempt budget is kept for: a code's key, or an account's second factor. */
export type BudgetKey = OtpKey | SecondFactorKey;

/**
 * Who asks for a code or checks one: the caller's counting address as the HTTP layer hands it on
 * (the request's `sourceIp`; an IPv6 caller counted by its /64). Send limits and wrong-code budgets
 * are per source, so one source cannot spend them for everybody.
 */
export type OtpSource = string;

export interface OtpPolicy {
  /** Seconds a code stays valid, per channel. @default email 600, sms 300 */
  lifetimeSeconds: Record<OtpChannel, number>;
  /**
   * Verify attempts (right or wrong) per key and source within `attemptWindowSeconds`: a source
   * that never saw the code spends its own attempts, never its owner's. @default 5
   */
  maxAttempts: number;
  /** How long a spent attempt counts, from the first attempt of the window. @default 3600 */
  attemptWindowSeconds: number;
  /**
   * The window of the purposes that recover an account, shorter: whoever mistyped a reset code
   * five times waits no longer than this. @default 900 for password_reset
   */
  recoveryAttemptWindowSeconds: number;
  /**
   * Wrong codes per target (all purposes and sources) in one UTC day. Any 24 hours overlap at
   * most two UTC days, so no rolling 24 h holds more than twice this: 50 keeps the target within
   * NIST SP 800-63B §5.2.2's 100 failed checks, in one conditional write. @default 50
   */
  failuresPerTargetPerDay: number;
  /**
   * Wrong codes per target and source in one UTC day, all purposes: one source alone cannot
   * spend the target's day (it takes `failuresPerTargetPerDay / failuresPerSourcePerDay`
   * sources). @default 10
   */
  failuresPerSourcePerDay: number;
  /** Seconds between two codes for one key asked by one source. @default 60 */
  cooldownSeconds: number;
  /** Codes per channel + target and source in one clock hour, all purposes. @default 3 */
  sendsPerSourcePerHour: number;
  /**
   * Codes per channel + target in one clock hour, all purposes and sources: what one address can
   * be sent at most. Above `sendsPerSourcePerHour`, so one source leaves the owner codes to ask
   * for. @default 10
   */
  sendsPerHour: number;
}

export const defaultOtpPolicy: OtpPolicy = {
  lifetimeSeconds: { email: 600, sms: 300 },
  maxAttempts: 5,
  attemptWindowSeconds: 3600,
  recoveryAttemptWindowSeconds: 900,
  failuresPerTargetPerDay: 50,
  failuresPerSourcePerDay: 10,
  cooldownSeconds: 60,
  sendsPerSourcePerHour: 3,
  sendsPerHour: 10,
};

/** A code as stored: never the code itself, only its keyed digest. Times are epoch ms. */
export interface StoredOtp {
  codeHash: string;
  issuedAt: number;
  expiresAt: number;
  /** Whom the code proves the target for (a user id), when the issuer named one. */
  subject?: string;
  /** The source that asked for it: its cooldown is that source's alone. */
  issuedBy?: OtpSource;
}

export type IssueOutcome =
  | { issued: true }
  /** The source had a code for the key less than the cooldown ago; `issuedAt` of that code. */
  | { issued: false; refusedBy: 'cooldown'; lastIssuedAt: number | undefined }
  /** The source, or the target from all sources, had its codes of the hour. */
  | { issued: false; refusedBy: 'source_hourly_cap' | 'hourly_cap' }
  /** The source's attempt budget is spent: a new code could not be verified by it anyway. */
  | { issued: false; refusedBy: 'attempts'; windowEndsAt: number | undefined }
  /** The target's wrong codes of the day reached the ceiling: no code verifies until it ends. */
  | { issued: false; refusedBy: 'failures' };

/** The counters of wrong codes a reservation took, in the UTC day starting at `dayStart`. */
export interface FailureDay {
  /** Epoch seconds. */
  dayStart: number;
}

export type AttemptReservation =
  /** `last`: this attempt spends the source's last one (a wrong code then answers 429). */
  | { allowed: true; last: false; day: FailureDay }
  | { allowed: true; last: true; windowEndsAt: number; day: FailureDay }
  /** The source's budget, or a day's wrong-code ceiling, is spent until `windowEndsAt`. */
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

/** What a reserved attempt is counted against: the key's budget for its source, and the day's. */
export interface AttemptTerms {
  source: OtpSource;
  maxAttempts: number;
  now: number;
  /** The end of a window opened by this attempt. */
  windowEndsAt: number;
  day: FailureDay;
  failuresPerSourcePerDay: number;
  failuresPerTargetPerDay: number;
}

/** What a send is counted against: the source's and the target's codes, and what verifies. */
export interface IssueTerms {
  source: OtpSource;
  /** A code the same source asked for after this (epoch ms) holds the cooldown. */
  cooldownEdge: number;
  /** Epoch s. */
  hourStart: number;
  sendsPerSourcePerHour: number;
  sendsPerHour: number;
  maxAttempts: number;
  day: FailureDay;
  failuresPerTargetPerDay: number;
  now: number;
}

/**
 * Storage of codes. Each method is one atomic write (a conditional write or one transaction), or
 * one read, so the rules hold under concurrency: the DynamoDB adapter
 * (shared/adapters/dynamo-otp-store.ts) implements it.
 */
export interface OtpStore {
  /**
   * Stores `otp` as the key's live code (superseding the previous one) only if, all at once: the
   * live code is another source's or was issued at or before `cooldownEdge`; the source has fewer
   * than `sendsPerSourcePerHour` and the target fewer than `sendsPerHour` sends in the hour
   * starting at `hourStart` (epoch s), counting this one; the source's attempt budget for the key
   * is not spent; and the target's wrong codes of the day are under their ceiling.
   */
  issue(key: OtpKey, otp: StoredOtp, terms: IssueTerms): Promise<IssueOutcome>;
  /**
   * Spends one attempt of the key's budget for the source, opening a new window (ending at
   * `windowEndsAt`) when none is open at `now`, and counts it, in the same write, as a wrong code
   * of the day for the source and for the target under their ceilings; refused when any is spent.
   * With `targetHit`, the same write counts the target's per-minute hit, refused at its limit.
   */
  reserveAttempt(
    key: BudgetKey,
    terms: AttemptTerms,
    targetHit?: PendingHit,
  ): Promise<AttemptReservation>;
  /**
   * Takes back a code that was never sent, all at once: deletes it if it is still the live code
   * with `codeHash`, and removes its send from the source's and the target's hour starting at
   * `hourStart`. A code superseded meanwhile is left alone, and so are the counts.
   */
  withdraw(key: OtpKey, codeHash: string, hourStart: number, source: OtpSource): Promise<void>;
  /**
   * Puts back a consumed code as it was, unless a code was issued for the key since (which then
   * stays the live one).
   */
  restore(key: OtpKey, otp: StoredOtp): Promise<void>;
  /** Deletes the live code if its digest is `codeHash` (single use); else reports what is there. */
  consume(key: OtpKey, codeHash: string): Promise<ConsumeOutcome>;
  /**
   * Like consume, and settles the attempt (`settle`) in the same write, for a caller that does not
   * need the code's subject back: a code past its expiry at `now` is left in place.
   */
  consumeSettling(
    key: OtpKey,
    codeHash: string,
    now: number,
    attempt: { source: OtpSource; day: FailureDay },
  ): Promise<ClearingConsumeOutcome>;
  /**
   * After a right code: forgets the source's attempt budget for the key, and takes the attempt
   * back from the day's wrong codes (it was counted as one until the code was compared).
   */
  settle(key: BudgetKey, attempt: { source: OtpSource; day: FailureDay }): Promise<void>;
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
  /** Who asked for it (what `withdraw` gives the send back to). */
  source: OtpSource;
}

/** What a check of a code is counted against besides its key. */
export interface CheckTerms {
  source: OtpSource;
  /** The request's hit on its target's per-minute verification limit. */
  targetHit?: PendingHit;
}

const secondsUntil = (epochMs: number, now: number) =>
  Math.max(1, Math.ceil((epochMs - now) / 1000));

const hourOf = (epochMs: number) => {
  const seconds = Math.floor(epochMs / 1000);
  return seconds - (seconds % 3600);
};

const daySeconds = 24 * 3600;

/** The UTC day of `epochMs`, whose wrong codes one pair of counters holds. */
const dayOf = (epochMs: number): FailureDay => {
  const seconds = Math.floor(epochMs / 1000);
  return { dayStart: seconds - (seconds % daySeconds) };
};

const dayEnd = (day: FailureDay) => (day.dayStart + daySeconds) * 1000;

/** A reservation that lets its guess be compared. */
type Reserved = Extract<AttemptReservation, { allowed: true }>;

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
   * A new code for the key, asked for by `source`, superseding the previous one; `subject` (a
   * user id) is whom it proves the target for, answered by `verify`. Throws rate_limited (with
   * retryAfterSeconds) during the source's cooldown or over the source's or the target's hourly
   * cap, and too_many_attempts while the source's attempt budget or the target's wrong codes of
   * the day are spent. Round trips: 1 transaction (+1 read to time a cooldown or budget refusal).
   */
  async issue(key: OtpKey, source: OtpSource, subject?: string): Promise<IssuedCode> {
    const now = this.clock.now();
    // randomInt draws without modulo bias from the CSPRNG.
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const lifetimeSeconds = this.lifetimeSeconds(key.channel);
    const expiresAt = now + lifetimeSeconds * 1000;
    const hourStart = hourOf(now);
    const day = dayOf(now);
    const codeHash = await this.digest(key, code);
    const outcome = await this.store.issue(
      key,
      { codeHash, issuedAt: now, expiresAt, subject, issuedBy: source },
      {
        source,
        cooldownEdge: now - this.policy.cooldownSeconds * 1000,
        hourStart,
        sendsPerSourcePerHour: this.policy.sendsPerSourcePerHour,
        sendsPerHour: this.policy.sendsPerHour,
        maxAttempts: this.policy.maxAttempts,
        day,
        failuresPerTargetPerDay: this.policy.failuresPerTargetPerDay,
        now,
      },
    );
    if (outcome.issued) return { code, issuedAt: now, expiresAt, lifetimeSeconds, source };
    const hourEnds = secondsUntil((hourStart + 3600) * 1000, now);
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
      case 'source_hourly_cap':
        throw new ServiceError(
          'rate_limited',
          `At most ${this.policy.sendsPerSourcePerHour} codes an hour can be asked for one address from one place`,
          [],
          { retryAfterSeconds: hourEnds, limit: 'otp-source-hourly-cap' },
        );
      case 'hourly_cap':
        throw new ServiceError(
          'rate_limited',
          `At most ${this.policy.sendsPerHour} codes an hour can be sent to one address`,
          [],
          { retryAfterSeconds: hourEnds, limit: 'otp-hourly-cap' },
        );
      case 'attempts':
        throw this.tooManyAttempts(
          outcome.windowEndsAt ?? now + this.attemptWindowSeconds(key.purpose) * 1000,
          now,
        );
      case 'failures':
        throw this.tooManyAttempts(dayEnd(day), now);
    }
  }

  /**
   * Takes back an issued code whose message could not be sent (SES or SNS failing): it no longer
   * verifies, and neither holds the cooldown nor counts against the hourly caps — so the sender's
   * retry (the client's, or the queue's redelivery) issues and sends a fresh one at once instead
   * of being refused for a code nobody got. Round trips: 1 transaction.
   */
  async withdraw(key: OtpKey, issued: IssuedCode): Promise<void> {
    await this.store.withdraw(
      key,
      await this.digest(key, issued.code),
      hourOf(issued.issuedAt),
      issued.source,
    );
  }

  /**
   * Consumes the key's code if `code` is it. Every call first reserves one attempt of the
   * source's budget for the key and one wrong code of the target's day, so no more than
   * `maxAttempts` guesses per source and `failuresPerTargetPerDay` per target are ever compared,
   * however many arrive at once; a source's fifth wrong one answers too_many_attempts, and the
   * code stays for the other sources (its owner). Throws invalid_otp, otp_expired or
   * too_many_attempts (429). Answers the code's subject, if its issuer named one.
   *
   * `targetHit` is the request's hit on its target's per-minute verification limit: counted in
   * the attempt's reservation (rate_limited when the limit refuses).
   * Round trips: success 3 (reserve, consume, settle); wrong 2.
   */
  async verify(key: OtpKey, code: string, terms: CheckTerms): Promise<{ subject?: string }> {
    const consumed = await this.counted(key, () => this.consume(key, code, terms));
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
    terms: CheckTerms,
  ): Promise<T> {
    const consumed = await this.counted(key, () => this.consume(key, code, terms));
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
  private async consume(key: OtpKey, code: string, terms: CheckTerms): Promise<StoredOtp> {
    const now = this.clock.now();
    // Hashed first: a pepper that cannot be read fails the request before an attempt is spent.
    const codeHash = await this.digest(key, code);
    const reservation = await this.reserve(key, now, terms);
    // The digest is compared inside DynamoDB's condition: only keyed digests meet, so timing
    // says nothing about the code, and the delete is the single use (one winner).
    const result = await this.store.consume(key, codeHash);
    if (result.outcome === 'consumed') {
      // TTL deletes lazily: a code past its expiry may still be stored.
      if (result.otp.expiresAt <= now) throw expired();
      try {
        await this.store.settle(key, { source: terms.source, day: reservation.day });
      } catch (error) {
        // The code is consumed and the caller proven: a budget left in place only ends with its
        // window, and a right code left counted as wrong only tightens the day's ceiling.
        log.warn('otp attempt not settled', { error });
      }
      return result.otp;
    }
    return this.refuse(result, reservation, now);
  }

  /**
   * Like verify, for a caller that needs no subject back and has nothing left to do once the code
   * is consumed (a generic code, whose subject is in its key): the consumption settles the
   * attempt in the same transaction, and nothing could fail after it that would call for the
   * code back. Round trips: 2 (reserve, consume and settle), a wrong code included.
   */
  async check(key: OtpKey, code: string, terms: CheckTerms): Promise<void> {
    return this.counted(key, async () => {
      const now = this.clock.now();
      const codeHash = await this.digest(key, code);
      const reservation = await this.reserve(key, now, terms);
      const result = await this.store.consumeSettling(key, codeHash, now, {
        source: terms.source,
        day: reservation.day,
      });
      if (result.outcome === 'consumed') return;
      if (result.outcome === 'expired') throw expired();
      return this.refuse(result, reservation, now);
    });
  }

  private async reserve(key: BudgetKey, now: number, terms: CheckTerms): Promise<Reserved> {
    const reservation = await this.store.reserveAttempt(
      key,
      {
        source: terms.source,
        maxAttempts: this.policy.maxAttempts,
        now,
        windowEndsAt: now + this.attemptWindowSeconds(key.purpose) * 1000,
        day: dayOf(now),
        failuresPerSourcePerDay: this.policy.failuresPerSourcePerDay,
        failuresPerTargetPerDay: this.policy.failuresPerTargetPerDay,
      },
      terms.targetHit,
    );
    if (reservation.allowed) return reservation;
    if ('targetLimited' in reservation) {
      throw routeLimited(reservation.targetLimited, terms.targetHit?.window.scope ?? 'otp-target');
    }
    throw this.tooManyAttempts(reservation.windowEndsAt, now);
  }

  /** The answer to a code that did not verify (wrong, expired, none pending). */
  private refuse(
    result: { outcome: 'mismatch'; otp: StoredOtp } | { outcome: 'none' },
    reservation: Reserved,
    now: number,
  ): never {
    if (result.outcome === 'mismatch' && result.otp.expiresAt <= now) throw expired();
    // The source's last attempt: it is told, and refused until its window ends. The code stays,
    // for the sources that saw it.
    if (reservation.last) throw this.tooManyAttempts(reservation.windowEndsAt, now);
    // One answer for a wrong code and for no code: telling them apart would reveal that a code
    // is pending, and so that an account exists for the address.
    throw new ServiceError('invalid_otp', 'The code is incorrect or no longer valid');
  }

  /**
   * Checks a code the engine did not issue — an authenticator app's, a recovery code — against
   * the budgets a code's check spends (an attempt reserved per source before `matches` runs, the
   * day's wrong codes per account and source), so a second factor is no easier to guess than a
   * code. `matches` compares and, on a match, uses the code up (single use is its store's). A
   * match settles the attempt; a mismatch answers invalid_otp, or too_many_attempts on the
   * source's last attempt. Round trips: reserve, `matches`'s, and settle on a match.
   */
  async guard(
    key: SecondFactorKey,
    terms: CheckTerms,
    matches: () => Promise<boolean>,
  ): Promise<void> {
    const now = this.clock.now();
    const reservation = await this.reserve(key, now, terms);
    if (!(await matches())) return this.refuse({ outcome: 'none' }, reservation, now);
    try {
      await this.store.settle(key, { source: terms.source, day: reservation.day });
    } catch (error) {
      log.warn('second factor attempt not settled', { error });
    }
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

  private attemptWindowSeconds(purpose: BudgetKey['purpose']): number {
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
