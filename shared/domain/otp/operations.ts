import type { AccountDirectory } from '../accounts/directory.js';
import type { AccountCodeQueue } from '../accounts/ports.js';
import { sendWithoutTelling } from '../accounts/send-without-telling.js';
import type { TokenResponse } from '../accounts/sessions.js';
import { ServiceError } from '../errors.js';
import type { OtpChecks } from './checks.js';
import type { OtpCodes } from './codes.js';
import { defaultOtpPolicy } from './engine.js';
import { refuseUnlistedSmsCountry } from './sms-countries.js';

/**
 * The OTP operations of service-interface.md. Inputs arrive validated and normalised (lower-cased
 * email, E.164 phone). Round trips are counted in docs/otp.md.
 */

/** What the verify operations need: checking codes, and the accounts. */
export interface OtpCheckDeps {
  codes: OtpChecks;
  accounts: AccountDirectory;
}

/** What the operations that send need besides: sending codes, and the SMS country allow-list. */
export interface OtpOperationDeps extends OtpCheckDeps {
  codes: OtpCodes;
  /** SMS_ALLOWED_COUNTRIES; empty allows all. */
  smsCountries: readonly string[];
}

/** Who may answer whether a phone number is registered (the PHONE# uniqueness guard). */
export interface PhoneRegistry {
  isRegistered(phone: string): Promise<boolean>;
}

export type SmsPurpose = 'login' | 'generic';

export interface CodeSent {
  message: string;
  /** Seconds the code stays valid. */
  expires_in: number;
}

/**
 * Texts a code. Purpose login only for the phone of an active account (email verified): anyone
 * can learn whether a number is registered from verifyPhoneAccount, so a plain 404 here hides
 * nothing and tells a user who mistyped their number. Purpose generic texts any number.
 */
export async function sendOtp(
  deps: OtpOperationDeps,
  input: { phone: string; purpose: SmsPurpose },
): Promise<CodeSent & { phone_number: string; purpose: SmsPurpose }> {
  refuseUnlistedSmsCountry(input.phone, deps.smsCountries, 'phone_number');
  if (input.purpose === 'login') {
    const user = await deps.accounts.findByPhone(input.phone);
    if (user === undefined || !user.email_verified) {
      throw new ServiceError('not_found', 'No active account has this phone number', [
        { field: 'phone_number', message: 'does not belong to an active account' },
      ]);
    }
  }
  await deps.codes.send('sms', input.phone, input.purpose);
  return {
    phone_number: input.phone,
    purpose: input.purpose,
    message: 'We sent a 6-digit code by SMS',
    expires_in: deps.codes.lifetimeSeconds('sms'),
  };
}

export interface GenericVerification {
  verified: true;
  phone_number: string;
  purpose: 'generic';
}

/**
 * Consumes an SMS code. Purpose login signs the phone's active account in (marking the phone
 * verified, in the session's own transaction) and returns the token pair; generic only confirms.
 */
export async function verifyOtp(
  deps: OtpCheckDeps,
  input: { phone: string; code: string; purpose: SmsPurpose },
): Promise<TokenResponse | GenericVerification> {
  await deps.codes.verify('sms', input.phone, input.purpose, input.code);
  if (input.purpose === 'generic') {
    return { verified: true, phone_number: input.phone, purpose: 'generic' };
  }
  // The account may have lost the number or been deactivated since the code was sent.
  const user = await deps.accounts.findByPhone(input.phone);
  if (user === undefined || !user.email_verified) {
    throw new ServiceError('invalid_otp', 'The code is not valid for this phone number');
  }
  return deps.accounts.signInWithPhone(user.id, input.phone);
}

/** `expiresIn`: the lifetime of the code the worker will issue (its engine runs the default policy). */
const resendAnswer = (what: string, expiresIn: number): CodeSent => ({
  message: `If this ${what} is waiting for verification, we sent it a new code`,
  expires_in: expiresIn,
});

/**
 * Asks for a new code for an email waiting for verification. The answer does not depend on the
 * account, so the request does not look it up: it queues the work (one SendMessage, whatever the
 * email) and the account-code worker does the rest (`sendPendingEmailCode`).
 */
export async function resendEmailOtp(queue: AccountCodeQueue, email: string): Promise<CodeSent> {
  await queue.request({ kind: 'resend_email', target: email });
  return resendAnswer('email', defaultOtpPolicy.lifetimeSeconds.email);
}

/** Like resendEmailOtp for a phone waiting for verification (signup or profile change). */
export async function resendMobileOtp(
  deps: { queue: AccountCodeQueue; smsCountries: readonly string[] },
  phone: string,
): Promise<CodeSent> {
  // Depends on the number alone, so it reveals nothing about accounts.
  refuseUnlistedSmsCountry(phone, deps.smsCountries, 'mobile_number');
  await deps.queue.request({ kind: 'resend_mobile', target: phone });
  return resendAnswer('number', defaultOtpPolicy.lifetimeSeconds.sms);
}

/**
 * resendEmailOtp's work, in the account-code worker: a new code for an email waiting for
 * verification — the sign-up code of an account not yet activated, or the verification code of
 * an email changed in the profile (whichever was sent last; sign-up when no code is on record).
 * Unknown and verified emails get nothing. Limits are absorbed (a redelivered message within the
 * cooldown sends nothing more).
 */
export async function sendPendingEmailCode(deps: OtpOperationDeps, email: string): Promise<void> {
  const user = await deps.accounts.findByEmail(email);
  if (user === undefined || user.email_verified) return;
  const purpose =
    (await deps.codes.engine.latestPurpose('email', email, ['signup', 'verification'])) ?? 'signup';
  await sendWithoutTelling(() => deps.codes.send('email', email, purpose));
}

/** resendMobileOtp's work, in the account-code worker: the same for a phone. */
export async function sendPendingMobileCode(deps: OtpOperationDeps, phone: string): Promise<void> {
  const user = await deps.accounts.findByPhone(phone);
  if (user === undefined || user.phone_verified) return;
  await sendWithoutTelling(() => deps.codes.send('sms', phone, 'verification'));
}

/**
 * Confirms ownership of an email with the code sent for its verification (a profile change) or
 * its sign-up; marks it verified on the account that holds it. A sign-up code used here
 * activates the account without signing in (verifySignupOtp does both).
 */
export async function verifyEmailOtp(
  deps: OtpCheckDeps,
  input: { email: string; otp: string },
): Promise<{ verified: true; email: string }> {
  const purpose =
    (await deps.codes.engine.latestPurpose('email', input.email, ['verification', 'signup'])) ??
    'verification';
  await deps.codes.verify('email', input.email, purpose, input.otp);
  const user = await deps.accounts.findByEmail(input.email);
  if (user === undefined || !(await deps.accounts.markEmailVerified(user.id, input.email))) {
    throw new ServiceError('invalid_otp', 'The code is not valid for this email');
  }
  return { verified: true, email: input.email };
}

/** Confirms ownership of a phone number and marks it verified on the account that holds it. */
export async function verifyMobileOtp(
  deps: OtpCheckDeps,
  input: { phone: string; otp: string },
): Promise<{ verified: true; mobile_number: string }> {
  await deps.codes.verify('sms', input.phone, 'verification', input.otp);
  const user = await deps.accounts.findByPhone(input.phone);
  if (user === undefined || !(await deps.accounts.markPhoneVerified(user.id, input.phone))) {
    throw new ServiceError('invalid_otp', 'The code is not valid for this phone number');
  }
  return { verified: true, mobile_number: input.phone };
}

/** Whether the number is registered, for duplicate checks at sign-up and profile update. */
export async function verifyPhoneAccount(
  registry: PhoneRegistry,
  phone: string,
): Promise<{ phone: string; registered: boolean }> {
  return { phone, registered: await registry.isRegistered(phone) };
}
