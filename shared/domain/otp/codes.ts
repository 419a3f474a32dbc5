import type { Mailer, SmsSender } from '../messages.js';
import { OtpChecks } from './checks.js';
import type { OtpChannel, OtpEngine, OtpPurpose } from './engine.js';
import { refuseUnlistedSmsCountry } from './sms-countries.js';
import { codeEmail, codeSms } from './templates.js';

/**
 * Codes as the use-cases need them: issue and deliver in one call, verify and consume in another.
 * This is what the account use-cases know as `AccountCodes` (shared/domain/accounts/ports.ts).
 */
export class OtpCodes extends OtpChecks {
  constructor(
    engine: OtpEngine,
    private readonly mailer: Mailer,
    private readonly sms: SmsSender,
    /** SMS_ALLOWED_COUNTRIES; empty allows all. @default [] */
    private readonly smsCountries: readonly string[] = [],
  ) {
    super(engine);
  }

  /**
   * Issues a new code for channel + target + purpose and sends it with the purpose's template;
   * `subject` (a user id) is whom the code proves the target for.
   * Throws rate_limited (cooldown, hourly cap) or too_many_attempts, with retryAfterSeconds, and
   * invalid_request (field phone_number) for an SMS to a country off the allow-list.
   */
  async send(
    channel: OtpChannel,
    target: string,
    purpose: OtpPurpose,
    subject?: string,
  ): Promise<void> {
    if (channel === 'sms') refuseUnlistedSmsCountry(target, this.smsCountries, 'phone_number');
    const issued = await this.engine.issue({ channel, target, purpose }, subject);
    const minutes = Math.round(issued.lifetimeSeconds / 60);
    if (channel === 'email') {
      await this.mailer.send({ to: target, ...codeEmail(purpose, issued.code, minutes) });
    } else {
      await this.sms.send({ to: target, text: codeSms(purpose, issued.code, minutes) });
    }
  }
}
