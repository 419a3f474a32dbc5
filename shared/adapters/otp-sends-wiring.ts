import { smsAllowedCountries } from '../config.js';
import type { AccountCodeQueue } from '../domain/accounts/ports.js';
import { systemClock } from '../domain/clock.js';
import type { CodeRequestDeps } from '../domain/otp/code-requests.js';
import type { OtpCheckDeps, SendOtpDeps } from '../domain/otp/operations.js';
import { accountDirectoryDependency } from './accounts-wiring.js';
import { dynamoSignupNotices } from './dynamo-signup-notices.js';
import { lazily } from './lazily.js';
import { otpChecks, otpCodes, smsCodes } from './otp-codes.js';
import { mailer } from './ses-mailer.js';
import { accountCodeQueue } from './sqs-account-code-queue.js';

/**
 * The OTP area's wiring for what sends codes or queues their work (otp-wiring.ts says why it is a
 * module of its own). Codes, queue, mailer and the SMS allow-list are getters of each object, read
 * when a use-case reaches them, so a stand-in installed later is the one used. One getter per kind
 * of function: sendOtp carries no SES client, the resends no OTP engine.
 */

/** verifyMobileOtp's: a verification, then the account's notice queued. */
export const mobileCheckDependencies = /* @__PURE__ */ lazily(
  (): OtpCheckDeps & { queue: AccountCodeQueue } => ({
    get codes() {
      return otpChecks();
    },
    accounts: accountDirectoryDependency(),
    get queue() {
      return accountCodeQueue();
    },
  }),
);

/** sendOtp's: it only texts (no SES client in its bundle), and queues login codes. */
export const sendOtpDependencies = /* @__PURE__ */ lazily(
  (): SendOtpDeps => ({
    get codes() {
      return smsCodes();
    },
    accounts: accountDirectoryDependency(),
    get smsCountries() {
      return smsAllowedCountries();
    },
    get queue() {
      return accountCodeQueue();
    },
  }),
);

type ResendDeps = { queue: AccountCodeQueue; smsCountries: readonly string[] };

/** The resends': they queue the work (the account-code worker issues and sends). */
export const resendDependencies = /* @__PURE__ */ lazily(
  (): ResendDeps => ({
    get queue() {
      return accountCodeQueue();
    },
    get smsCountries() {
      return smsAllowedCountries();
    },
  }),
);

/** The account-code worker's: issue and send codes by email and SMS, and signup notices. */
export const codeRequestDependencies = /* @__PURE__ */ lazily(
  (): CodeRequestDeps => ({
    get codes() {
      return otpCodes();
    },
    accounts: accountDirectoryDependency(),
    get smsCountries() {
      return smsAllowedCountries();
    },
    signupNotices: dynamoSignupNotices,
    get mailer() {
      return mailer();
    },
    clock: systemClock,
  }),
);
