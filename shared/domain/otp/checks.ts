import type { PendingHit } from '../rate-limit.js';
import { type OtpChannel, type OtpEngine, type OtpSource, otpKey } from './engine.js';
import type { OtpPurpose } from './purposes.js';

export interface CheckOptions {
  /**
   * Who checks: the request's counting address. Wrong codes are counted per source, so a source
   * that never saw the code spends only its own attempts.
   */
  source: OtpSource;
  /** For a purpose keyed on its subject (generic): the user claiming the code. */
  subject?: string;
  /** The request's hit on its target's per-minute verification limit. */
  targetHit?: PendingHit;
}

/**
 * Checking codes, as the verify operations need it: the engine alone. It lives apart from
 * `OtpCodes` (which adds sending) so that a function that only verifies bundles neither the SES
 * and SNS clients nor the phone metadata behind the SMS country allow-list.
 */
export class OtpChecks {
  constructor(readonly engine: OtpEngine) {}

  /** Seconds a code sent on `channel` stays valid. */
  lifetimeSeconds(channel: OtpChannel): number {
    return this.engine.lifetimeSeconds(channel);
  }

  /**
   * Consumes the code; answers whom it was issued for, if its issuer named someone. For a
   * purpose keyed on its subject (generic), `subject` is the user claiming it: only that user's
   * code is checked. `targetHit`, the request's hit on the target's per-minute verification
   * limit, is counted in the attempt's reservation with the source's. Throws invalid_otp, otp_expired,
   * too_many_attempts or rate_limited.
   */
  verify(
    channel: OtpChannel,
    target: string,
    purpose: OtpPurpose,
    code: string,
    { source, subject, targetHit }: CheckOptions,
  ): Promise<{ subject?: string }> {
    return this.engine.verify(otpKey(channel, target, purpose, subject), code, {
      source,
      targetHit,
    });
  }

  /** Like verify, for a caller that needs no subject back: one round trip less. */
  check(
    channel: OtpChannel,
    target: string,
    purpose: OtpPurpose,
    code: string,
    { source, subject, targetHit }: CheckOptions,
  ): Promise<void> {
    return this.engine.check(otpKey(channel, target, purpose, subject), code, {
      source,
      targetHit,
    });
  }

  /**
   * Consumes the code, then runs what it proves (`effect`, given whom it was issued for); the code
   * is put back when the effect fails for a reason a retry may fix, so the retry finds it
   * (`OtpEngine.verifyThen`). For the purposes not keyed on a subject; `targetHit` as in verify.
   */
  verifyThen<T>(
    channel: OtpChannel,
    target: string,
    purpose: OtpPurpose,
    code: string,
    effect: (proof: { subject?: string }) => Promise<T>,
    { source, targetHit }: Pick<CheckOptions, 'source' | 'targetHit'>,
  ): Promise<T> {
    return this.engine.verifyThen(otpKey(channel, target, purpose), code, effect, {
      source,
      targetHit,
    });
  }
}
