import { log } from '../../log.js';
import type { AccountDirectory } from '../accounts/directory.js';
import type { SignInOutcome } from '../accounts/mfa-challenge.js';
import type { AccountCodeQueue, SignInClient } from '../accounts/ports.js';
import { sendWithoutTelling } from '../accounts/send-without-telling.js';
import { phoneSignsIn } from '../accounts/user.js';
import { ServiceError } from '../errors.js';
import type { PendingHit } from '../rate-limit.js';
import type { OtpChecks } from './checks.js';
import type { OtpCodes } from './codes.js';
import { defaultOtpPolicy, type OtpSource } from './engine.js';
import type { SmsPurpose } from './purposes.js';
import { refuseUnlistedSmsCountry } from './sms-countries.js';

/**
 * The OTP operations (docs/otp.md, "Operations"). Inputs arrive validated and normalised
 * (lower-cased email, E.164 phone). Round trips are counted in docs/otp.md.
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

export interface CodeSent {
  message: string;
  /** Seconds the code stays valid. */
  expiresIn: number;
}

/** What sendOtp needs besides: the account-code queue, whose worker sends login codes. */
export interface SendOtpDeps extends OtpOperationDeps {
  queue: AccountCodeQueue;
}

/**
 * The request of sendOtp or verifyOtp. `userId` is the signed-in caller (a Bearer token): purpose
 * generic needs one, purpose login ignores it.
 */
export interface SmsCodeRequest {
  phone: string;
  purpose: SmsPurpose;
  userId?: string;
  /** The caller's counting address: send limits and wrong codes are counted per source. */
  source: OtpSource;
}

/** Purpose generic confirms a number for a signed-in user, and only for that user. */
function signedInUser(request: SmsCodeRequest): string {
  if (request.userId === undefined) {
    throw new ServiceError('unauthorized', 'Send an access token as Authorization: Bearer <token>');
  }
  return request.userId;
}

/**
 * Texts a code.
 *
 * - **login**: only to the phone of an active account that its owner verified with an SMS code
 *   (not a pending one): a number merely written into an account proves nothing, and signing in
 *   with it would hand the account to whoever holds that number. The answer is the same for every
 *   number — unknown, unverified or verified — and so is the work on the request path (one read
 *   of the SMS cap, one SendMessage): the account-code worker looks the account up and texts only
 *   a verified phone, absorbing the cooldown and hourly cap, whose refusals would otherwise tell a
 *   verified phone apart.
 * - **generic**: to any number (allow-list, limits and the SMS cap apply), for the signed-in
 *   caller only: the code is bound to that user, so it verifies for nobody else.
 */
export async function sendOtp(
  deps: SendOtpDeps,
  request: SmsCodeRequest,
): Promise<CodeSent & { phone: string; purpose: SmsPurpose }> {
  refuseUnlistedSmsCountry(request.phone, deps.smsCountries, 'phone_number');
  const answer = { phone: request.phone, purpose: request.purpose };
  if (request.purpose === 'generic') {
    await deps.codes.send('sms', request.phone, 'generic', request.source, signedInUser(request));
    return {
      ...answer,
      message: 'We sent a 6-digit code by SMS',
      expiresIn: deps.codes.lifetimeSeconds('sms'),
    };
  }
  // The cap's refusal depends on the service alone, so it may be told to every caller; a text
  // the worker would be refused is then never queued.
  await deps.codes.smsCap.refuseWhenSpent();
  await deps.queue.request({ kind: 'sms_login', target: request.phone, source: request.source });
  return {
    ...answer,
    message: 'If this number is the verified phone of an account, we sent it a 6-digit code by SMS',
    expiresIn: deps.codes.lifetimeSeconds('sms'),
  };
}

/**
 * sendOtp login's work, in the account-code worker: a login code for the verified phone of an
 * active account only (findByPhone finds no account by a pending phone), and not while the phone
 * waits to be confirmed again after a password reset.
 */
export async function sendLoginCode(
  deps: OtpOperationDeps,
  phone: string,
  source: OtpSource,
): Promise<void> {
  const user = await deps.accounts.findByPhone(phone);
  if (user === undefined || !phoneSignsIn(user)) return;
  await sendWithoutTelling(() => deps.codes.send('sms', phone, 'login', source));
}

export interface GenericVerification {
  verified: true;
  phone: string;
  purpose: 'generic';
}

/**
 * Consumes an SMS code. Purpose login signs in the active account whose verified phone it is and
 * returns the token pair (the sign-in proves the phone again; it never marks one verified).
 * Purpose generic confirms, and only the code sent for the signed-in caller; when the number is
 * the caller's own phone, held back since a password reset, it signs in by SMS again.
 */
export async function verifyOtp(
  deps: OtpCheckDeps,
  request: SmsCodeRequest & { code: string },
  client: SignInClient,
  targetHit?: PendingHit,
): Promise<SignInOutcome | GenericVerification> {
  // A generic code only confirms (its subject is the caller, in its key): checked, consumed and
  // its budget cleared in two round trips. A login code is put back if the sign-in then fails.
  if (request.purpose === 'generic') {
    const subject = signedInUser(request);
    await deps.codes.check('sms', request.phone, 'generic', request.code, {
      source: request.source,
      subject,
      targetHit,
    });
    // A code sent to a signed-in session and entered in one: if the number is the account's own
    // phone, waiting since a password reset, it signs in by SMS again (one conditional write).
    await deps.accounts.confirmPhoneAgain(subject, request.phone);
    return { verified: true, phone: request.phone, purpose: 'generic' };
  }
  return deps.codes.verifyThen(
    'sms',
    request.phone,
    'login',
    request.code,
    async () => {
      // The account may have lost the number since the code was sent (findByPhone finds only the
      // account whose *verified* phone it is).
      const user = await deps.accounts.findByPhone(request.phone);
      if (user === undefined || !phoneSignsIn(user)) {
        throw new ServiceError('invalid_otp', 'The code is not valid for this phone number');
      }
      return deps.accounts.signInWithPhone(user.id, request.phone, client);
    },
    { source: request.source, targetHit },
  );
}

/** `expiresIn`: the lifetime of the code the worker will issue (its engine runs the default policy). */
const resendAnswer = (what: string, expiresIn: number): CodeSent => ({
  message: `If this ${what} is waiting for verification, we sent it a new code`,
  expiresIn,
});

/**
 * Asks for a new code for an email waiting for verification. The answer does not depend on the
 * account, so the request does not look it up: it queues the work (one SendMessage, whatever the
 * email) and the account-code worker does the rest (`sendPendingEmailCode`).
 */
export async function resendEmailOtp(
  deps: { queue: AccountCodeQueue },
  email: string,
  source: OtpSource,
): Promise<CodeSent> {
  await deps.queue.request({ kind: 'resend_email', target: email, source });
  return resendAnswer('email', defaultOtpPolicy.lifetimeSeconds.email);
}

/** Like resendEmailOtp for a phone waiting for verification (signup or profile change). */
export async function resendMobileOtp(
  deps: { queue: AccountCodeQueue; smsCountries: readonly string[] },
  phone: string,
  source: OtpSource,
): Promise<CodeSent> {
  // Depends on the number alone, so it reveals nothing about accounts.
  refuseUnlistedSmsCountry(phone, deps.smsCountries, 'mobile_number');
  await deps.queue.request({ kind: 'resend_mobile', target: phone, source });
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
  source: OtpSource,
  subject?: string,
): Promise<void> {
  if (subject === undefined) {
    const holder = await deps.accounts.findByEmail(email);
    if (holder !== undefined && !holder.emailVerified) {
      await sendWithoutTelling(() => deps.codes.send('email', email, 'signup', source));
      return;
    }
  }
  const key = { channel: 'email', target: email, purpose: 'verification' } as const;
  const owner = subject ?? (await deps.codes.engine.lastSubject(key));
  const account = owner === undefined ? undefined : await deps.accounts.findById(owner);
  if (account?.pendingEmail !== email) return;
  await sendWithoutTelling(() =>
    deps.codes.send('email', email, 'verification', source, account.id),
  );
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
  source: OtpSource,
  subject?: string,
): Promise<void> {
  const key = { channel: 'sms', target: phone, purpose: 'verification' } as const;
  const owner = subject ?? (await deps.codes.engine.lastSubject(key));
  const account = owner === undefined ? undefined : await deps.accounts.findById(owner);
  if (account?.pendingPhone !== phone || !account.emailVerified) return;
  await sendWithoutTelling(() => deps.codes.send('sms', phone, 'verification', source, account.id));
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
  input: { email: string; otp: string; source: OtpSource },
  targetHit?: PendingHit,
): Promise<{ verified: true; email: string }> {
  const purpose =
    (await deps.codes.engine.latestPurpose('email', input.email, ['verification', 'signup'])) ??
    'verification';
  return deps.codes.verifyThen(
    'email',
    input.email,
    purpose,
    input.otp,
    async ({ subject }) => {
      if (purpose === 'signup') {
        if (!(await deps.accounts.activatePendingSignup(input.email))) throw invalidOtp('email');
        return { verified: true, email: input.email };
      }
      const outcome =
        subject === undefined
          ? 'stale'
          : await deps.accounts.confirmPendingEmail(subject, input.email);
      if (outcome === 'taken') throw takenMeanwhile('email', 'email');
      if (outcome === 'stale') throw invalidOtp('email');
      return { verified: true, email: input.email };
    },
    { source: input.source, targetHit },
  );
}

/**
 * Confirms ownership of a phone with its code: the pending phone of the account the code was
 * issued for becomes its verified phone (409 if another account proved it first), and the
 * account's email is told.
 */
export async function verifyMobileOtp(
  deps: OtpCheckDeps & { queue: AccountCodeQueue },
  input: { phone: string; otp: string; source: OtpSource },
  targetHit?: PendingHit,
): Promise<{ verified: true; phone: string }> {
  const subject = await deps.codes.verifyThen(
    'sms',
    input.phone,
    'verification',
    input.otp,
    async ({ subject }) => {
      const outcome =
        subject === undefined
          ? 'stale'
          : await deps.accounts.confirmPendingPhone(subject, input.phone);
      if (outcome === 'taken') throw takenMeanwhile('mobile_number', 'phone number');
      if (outcome === 'stale' || subject === undefined) throw invalidOtp('phone number');
      return subject;
    },
    { source: input.source, targetHit },
  );
  // The phone is confirmed and the answer must say so: a notice that cannot be queued is logged
  // (a retry of this request would find its code spent).
  try {
    const account = await deps.accounts.findById(subject);
    if (account !== undefined) {
      await deps.queue.request({ kind: 'notice', notice: 'phone_changed', target: account.email });
    }
  } catch (error) {
    log.warn('phone change notice not queued', { error });
  }
  return { verified: true, phone: input.phone };
}

/** Whether the number is registered, for duplicate checks at sign-up and profile update. */
export async function verifyPhoneAccount(
  registry: PhoneRegistry,
  phone: string,
): Promise<{ phone: string; registered: boolean }> {
  return { phone, registered: await registry.isRegistered(phone) };
}
