import { type OtpChannel, type OtpEngine, type OtpPurpose, otpKey } from './engine.js';

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
   * code is checked. Throws invalid_otp, otp_expired or too_many_attempts.
   */
  verify(
    channel: OtpChannel,
    target: string,
    purpose: OtpPurpose,
    code: string,
    subject?: string,
  ): Promise<{ subject?: string }> {
    return this.engine.verify(otpKey(channel, target, purpose, subject), code);
  }

  /**
   * Consumes the code, then runs what it proves (`effect`, given whom it was issued for); the code
   * is put back when the effect fails for a reason a retry may fix, so the retry finds it
   * (`OtpEngine.verifyThen`). For the purposes not keyed on a subject.
   */
  verifyThen<T>(
    channel: OtpChannel,
    target: string,
    purpose: OtpPurpose,
    code: string,
    effect: (proof: { subject?: string }) => Promise<T>,
  ): Promise<T> {
    return this.engine.verifyThen(otpKey(channel, target, purpose), code, effect);
  }
}
