import { log } from '../../log.js';
import type { Mailer, SmsSender } from '../messages.js';
import { metrics } from '../metrics.js';
import { phoneCountry } from '../phone.js';
import { OtpChecks } from './checks.js';
import {
  type IssuedCode,
  type OtpChannel,
  type OtpEngine,
  type OtpSource,
  otpKey,
} from './engine.js';
import type { GenericSmsAllowance } from './generic-sms.js';
import type { OtpPurpose } from './purposes.js';
import type { SmsCap } from './sms-cap.js';
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
    /** SMS_ALLOWED_COUNTRIES; empty allows all. */
    private readonly smsCountries: readonly string[],
    /** SMS_MAX_PER_HOUR, over every text of the service: each one passes through `send`. */
    readonly smsCap: SmsCap,
    /** One account's generic texts (GENERIC_SMS_NUMBERS_PER_HOUR, GENERIC_SMS_PER_DAY). */
    private readonly genericSms: GenericSmsAllowance,
  ) {
    super(engine);
  }

  /**
   * Issues a new code for channel + target + purpose, asked for by `source`, and sends it with the
   * purpose's template; `subject` (a user id) is whom the code proves the target for (for generic,
   * whose code alone it is). Throws rate_limited (the source's cooldown, the source's or the
   * target's hourly cap, the service's SMS cap or its generic share, the account's generic texts)
   * or too_many_attempts, with retryAfterSeconds, and invalid_request (field phone_number) for an
   * SMS to a country off the allow-list. A message SES or SNS did not take is withdrawn (`unsent`)
   * and its error thrown: the caller's retry then sends at once.
   */
  async send(
    channel: OtpChannel,
    target: string,
    purpose: OtpPurpose,
    source: OtpSource,
    subject?: string,
  ): Promise<void> {
    const key = otpKey(channel, target, purpose, subject);
    if (channel === 'email') {
      const issued = await this.engine.issue(key, source, subject);
      await this.unsent(
        () => this.mailer.send({ to: target, ...codeEmail(purpose, issued.code, minutes(issued)) }),
        () => this.engine.withdraw(key, issued),
      );
      metrics.count('OtpSent', { Channel: 'email' });
      return;
    }
    refuseUnlistedSmsCountry(target, this.smsCountries, 'phone_number');
    // Counted before the code is issued, so a refusal by a cap changes nothing else: the
    // service's hour first (one answer for everybody), then the account's own generic texts; a
    // text refused later gives back what it took.
    const takenBack: (() => Promise<void>)[] = [];
    const giveBack = () => Promise.all(takenBack.map((undo) => undo()));
    let issued: IssuedCode;
    try {
      const counted = await this.smsCap.take(purpose);
      takenBack.push(() => this.smsCap.giveBack(counted));
      if (purpose === 'generic' && subject !== undefined) {
        const generic = await this.genericSms.take(subject, target);
        takenBack.push(() => this.genericSms.giveBack(generic));
      }
      issued = await this.engine.issue(key, source, subject);
    } catch (error) {
      await giveBack();
      throw error;
    }
    await this.unsent(
      () => this.sms.send({ to: target, text: codeSms(purpose, issued.code, minutes(issued)) }),
      () => Promise.all([this.engine.withdraw(key, issued), giveBack()]),
    );
    // By country: what SMS spend follows, and where SMS pumping shows first.
    metrics.count('OtpSent', { Channel: 'sms', Country: phoneCountry(target) ?? 'unknown' });
  }

  /**
   * Sends; if sending fails, takes back what the code spent (`withdraw`) and throws the send's
   * error. A withdrawal that fails too (storage down as well) is logged: the code then holds its
   * cooldown as if it had been sent.
   */
  private async unsent(send: () => Promise<void>, withdraw: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      await withdraw().catch((withdrawal: unknown) =>
        log.warn('unsent code not withdrawn', { error: withdrawal }),
      );
      throw error;
    }
  }
}

const minutes = (issued: IssuedCode) => Math.round(issued.lifetimeSeconds / 60);
