import type { AccountDirectory } from '../accounts/directory.js';
import type { AccountCodeQueue, SignInClient } from '../accounts/ports.js';
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
  client: SignInClient,
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
  return deps.accounts.signInWithPhone(user.id, input.phone, client);
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
 * verification — the sign-up code of the pending signup that holds it, or else the verification
 * code of an account whose profile change waits for it: the account `subject` names (a profile
 * change queues it) or the one its last code was for (a resend). Unknown and verified emails get
 * nothing. Limits are absorbed (a redelivered message within the cooldown sends nothing more).
 */
export async function sendPendingEmailCode(
  deps: OtpOperationDeps,
  email: string,
  subject?: string,
): Promise<void> {
  if (subject === undefined) {
    const holder = await deps.accounts.findByEmail(email);
    if (holder !== undefined && !holder.email_verified) {
      await sendWithoutTelling(() => deps.codes.send('email', email, 'signup'));
      return;
    }
  }
  const key = { channel: 'email', target: email, purpose: 'verification' } as const;
  const owner = subject ?? (await deps.codes.engine.lastSubject(key));
  const account = owner === undefined ? undefined : await deps.accounts.findById(owner);
  if (account?.pending_email !== email) return;
  await sendWithoutTelling(() => deps.codes.send('email', email, 'verification', account.id));
}

/**
 * resendMobileOtp's work, in the account-code worker: the verification code of the account whose
 * pending phone this is — the account `subject` names (a profile change, or a signup's phone once
 * the account is activated) or the one its last code was for (a resend). A phone that no
 * activated account waits for is never texted, so signup cannot be used to text strangers.
 */
export async function sendPendingMobileCode(
  deps: OtpOperationDeps,
  phone: string,
  subject?: string,
): Promise<void> {
  const key = { channel: 'sms', target: phone, purpose: 'verification' } as const;
  const owner = subject ?? (await deps.codes.engine.lastSubject(key));
  const account = owner === undefined ? undefined : await deps.accounts.findById(owner);
  if (account?.pending_phone !== phone || !account.email_verified) return;
  await sendWithoutTelling(() => deps.codes.send('sms', phone, 'verification', account.id));
}

const invalidOtp = (what: string) =>
  new ServiceError('invalid_otp', `The code is not valid for this ${what}`);

/** The answer to a pending value whose code was right but which another account proved first. */
const takenMeanwhile = (field: string, what: string) =>
  new ServiceError('conflict', `This ${what} was registered to another account meanwhile`, [
    { field, message: 'is already in use by another account' },
  ]);

/**
 * Confirms ownership of an email with its code: a sign-up code activates the pending signup that
 * holds the email without signing in (verifySignupOtp does both; a contested signup comes out
 * with no password, to be reset); a verification code makes the pending email of the account it
 * was issued for that account's email (409 if another account proved it first).
 */
export async function verifyEmailOtp(
  deps: OtpCheckDeps,
  input: { email: string; otp: string },
): Promise<{ verified: true; email: string }> {
  const purpose =
    (await deps.codes.engine.latestPurpose('email', input.email, ['verification', 'signup'])) ??
    'verification';
  const { subject } = await deps.codes.verify('email', input.email, purpose, input.otp);
  if (purpose === 'signup') {
    if (!(await deps.accounts.activatePendingSignup(input.email))) throw invalidOtp('email');
    return { verified: true, email: input.email };
  }
  const outcome =
    subject === undefined ? 'stale' : await deps.accounts.confirmPendingEmail(subject, input.email);
  if (outcome === 'taken') throw takenMeanwhile('email', 'email');
  if (outcome === 'stale') throw invalidOtp('email');
  return { verified: true, email: input.email };
}

/**
 * Confirms ownership of a phone with its code: the pending phone of the account the code was
 * issued for becomes its verified phone (409 if another account proved it first), and the
 * account's email is told.
 */
export async function verifyMobileOtp(
  deps: OtpCheckDeps,
  queue: AccountCodeQueue,
  input: { phone: string; otp: string },
): Promise<{ verified: true; mobile_number: string }> {
  const { subject } = await deps.codes.verify('sms', input.phone, 'verification', input.otp);
  const outcome =
    subject === undefined ? 'stale' : await deps.accounts.confirmPendingPhone(subject, input.phone);
  if (outcome === 'taken') throw takenMeanwhile('mobile_number', 'phone number');
  if (outcome === 'stale' || subject === undefined) throw invalidOtp('phone number');
  const account = await deps.accounts.findById(subject);
  if (account !== undefined) {
    await queue.request({ kind: 'notice', notice: 'phone_changed', target: account.email });
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
