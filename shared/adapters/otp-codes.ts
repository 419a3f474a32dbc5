import { secret, smsAllowedCountries } from '../config.js';
import { systemClock } from '../domain/clock.js';
import { OtpCodes } from '../domain/otp/codes.js';
import { OtpEngine } from '../domain/otp/engine.js';
import { dynamoOtpStore } from './dynamo-otp-store.js';
import { mailer } from './ses-mailer.js';
import { smsSender } from './sns-sms-sender.js';

let codes: Promise<OtpCodes> | undefined;

/**
 * The OTP engine of this process on DynamoDB, SES and SNS (or the local stand-ins), with the
 * message templates and the SMS country allow-list, built once per cold start (OTP_PEPPER is read
 * once). It satisfies the account use-cases' `AccountCodes` as is (docs/otp.md).
 */
export function otpCodes(): Promise<OtpCodes> {
  if (codes === undefined) {
    codes = secret('OTP_PEPPER').then(
      (pepper) =>
        new OtpCodes(
          new OtpEngine(dynamoOtpStore, systemClock, pepper),
          mailer(),
          smsSender(),
          smsAllowedCountries(),
        ),
    );
    // A failed secret read is retried by the next request rather than cached.
    codes.catch(() => {
      codes = undefined;
    });
  }
  return codes;
}
