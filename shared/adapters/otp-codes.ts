import {
  genericSmsNumbersPerHour,
  genericSmsPerDay,
  smsAllowedCountries,
  smsMaxPerHour,
  smsReservedPercent,
} from '../config.js';
import { systemClock } from '../domain/clock.js';
import type { Mailer } from '../domain/messages.js';
import { OtpChecks } from '../domain/otp/checks.js';
import { OtpCodes } from '../domain/otp/codes.js';
import { OtpEngine } from '../domain/otp/engine.js';
import { GenericSmsAllowance } from '../domain/otp/generic-sms.js';
import { SmsCap } from '../domain/otp/sms-cap.js';
import { dynamoGenericSmsCounter } from './dynamo-generic-sms-counter.js';
import { dynamoOtpStore } from './dynamo-otp-store.js';
import { dynamoSmsCounter } from './dynamo-sms-counter.js';
import { secret } from './secrets.js';
import { mailer } from './ses-mailer.js';
import { smsSender } from './sns-sms-sender.js';

let engine: OtpEngine | undefined;

/**
 * The OTP engine of this process on DynamoDB, built once per cold start; it asks for OTP_PEPPER
 * when it first hashes a code (`secret` reads it once, and again after a failed read).
 */
function otpEngine(): OtpEngine {
  engine ??= new OtpEngine(dynamoOtpStore, systemClock, () => secret('OTP_PEPPER'));
  return engine;
}

/** The service-wide SMS cap (SMS_MAX_PER_HOUR, SMS_RESERVED_PERCENT) on DynamoDB. */
export const smsCap = (): SmsCap =>
  new SmsCap(dynamoSmsCounter, systemClock, smsMaxPerHour(), smsReservedPercent());

/** One account's generic texts (GENERIC_SMS_NUMBERS_PER_HOUR, GENERIC_SMS_PER_DAY) on DynamoDB. */
const genericSms = (): GenericSmsAllowance =>
  new GenericSmsAllowance(dynamoGenericSmsCounter, systemClock, {
    numbersPerHour: genericSmsNumbersPerHour(),
    perDay: genericSmsPerDay(),
  });

/**
 * Issuing and checking codes over SES and SNS (or the local stand-ins), with the message templates,
 * the SMS country allow-list and the service-wide SMS cap. It satisfies the account use-cases'
 * `AccountCodes` as is (docs/otp.md).
 */
export function otpCodes(): OtpCodes {
  return codesSendingEmailBy(mailerAtFirstEmail);
}

/**
 * The same for a function that only texts (sendOtp): its bundle then carries no SES client,
 * whose import cost it would pay at every cold start (1.41× the DynamoDB-only floor with it,
 * docs/performance.md). An email asked of it is a bug, and fails as one.
 */
export function smsCodes(): OtpCodes {
  return codesSendingEmailBy({
    send: async () => {
      throw new Error('this function sends no email: it is built with smsCodes()');
    },
  });
}

function codesSendingEmailBy(mailer: Mailer): OtpCodes {
  return new OtpCodes(
    otpEngine(),
    mailer,
    smsSender(),
    smsAllowedCountries(),
    smsCap(),
    genericSms(),
  );
}

/**
 * The mailer, looked up when an email is sent rather than when the codes are built: sendOtp only
 * texts, and its function is given no EMAIL_FROM (nor any right to send email) on AWS.
 */
const mailerAtFirstEmail: Mailer = { send: (message) => mailer().send(message) };

/**
 * Checking codes only. A function that never sends (the verify operations) uses this, and its
 * bundle then holds neither the SES and SNS clients nor the phone metadata: esbuild drops the
 * unused `otpCodes` above and what only it reaches.
 */
export function otpChecks(): OtpChecks {
  return new OtpChecks(otpEngine());
}
