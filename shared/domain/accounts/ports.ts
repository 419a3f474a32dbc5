import type { AccountCodePurpose } from '../otp/purposes.js';
import type { PageOf, PageRequest } from '../pages.js';
import type { PendingHit } from '../rate-limit.js';
import type { PublicUser, User } from './user.js';

/** What the account use-cases need from storage; DynamoDB adapters implement these. */

/** Profile fields a caller may change (already validated and normalised). */
export interface ProfileChanges {
  name?: string;
  gender?: string;
  onlineStatus?: boolean;
  /** A new email: it waits as `pending_email` until its code is verified. */
  pendingEmail?: string;
  /** A new phone: it waits as `pending_phone` until its code is verified. */
  pendingPhone?: string;
}

/** Where an email stands: no account holds it, or one holds it unverified or verified. */
export type EmailStanding = 'none' | 'unverified' | 'verified';

/** How an account's creation went; a taken email names the account that holds it. */
export type AccountCreation =
  | { outcome: 'created' }
  | { outcome: 'email_taken'; holderId: string }
  | { outcome: 'phone_taken' };

/** How confirming a pending email or phone went. */
export type PendingConfirmation =
  /** The value is the account's now. */
  | 'confirmed'
  /** Another account proved it first (its uniqueness guard is held). */
  | 'taken'
  /** The account no longer waits for this value (changed again, or gone). */
  | 'stale';

/**
 * What an activation writes (verifySignupOtp, or verifyEmailOtp with a signup code): the email is
 * verified. An activation the signer may not have made — a contested signup, or one for which
 * forgot-password was asked — also loses its password, its pending phone and any name a stranger
 * may have given, and asks its owner for a new password (docs/accounts.md, "Signup collisions",
 * "Forgot password").
 */
export interface Activation {
  email: string;
  /** Other signups met this one (the contest state it was read with). */
  contested: boolean;
  /** Forgot-password was asked for this pending signup (the state it was read with). */
  recovery: boolean;
  /**
   * The name the account keeps: the signups' one name, or the email's local part if they differ
   * or the activation is a recovery.
   */
  name: string;
}

/** Whether an activation keeps nothing of the signup but its email (`Activation`). */
export const dropsSignup = (activation: Activation): boolean =>
  activation.contested || activation.recovery;

export interface UserRepository {
  /**
   * Creates the account and claims its email in one transaction, so two concurrent signups with
   * one email cannot both succeed; a phone is only checked (a verified account holds it), since a
   * signup's phone stays pending and reserves nothing. Answers which claim failed, if one did; the
   * holder of a taken email comes back from the failed transaction itself (no read).
   */
  create(user: User): Promise<AccountCreation>;
  get(userId: string): Promise<User | undefined>;
  /**
   * The account that holds this email, in exactly two strongly consistent reads whatever the
   * answer (the guard, then the account; a random absent account when there is no guard), so
   * neither the round trips nor their count tell a known email from an unknown one.
   */
  findByEmail(email: string): Promise<User | undefined>;
  /**
   * Whether an account holds this email and has verified it, in exactly two strongly consistent
   * reads whatever the answer (as findByEmail, with small projections).
   */
  emailStanding(email: string): Promise<EmailStanding>;
  /** The account whose verified phone this is (one guard read). */
  findIdByPhone(phone: string): Promise<string | undefined>;
  /**
   * Replaces the password hash only if it is still `expectedHash` (no lost update between two
   * concurrent changes); the account has a usable password again. False when it changed meanwhile.
   */
  replacePasswordHash(userId: string, expectedHash: string, newHash: string): Promise<boolean>;
  /**
   * A password reset's write: `replacePasswordHash`, and what a recovery takes back from whoever
   * knew the old password — the pending email and phone are dropped, and the phone signs in by
   * SMS only once confirmed again (`phoneConfirmationRequired`). False when the hash changed
   * meanwhile.
   */
  recoverWithPassword(userId: string, expectedHash: string, newHash: string): Promise<boolean>;
  /**
   * Records that forgot-password was asked for the pending signup holding `email`
   * (`signupRecovery`), in one conditional write; refused silently when the account is verified
   * or no longer holds the email.
   */
  markSignupRecovery(userId: string, email: string): Promise<void>;
  /**
   * Lets the phone sign in by SMS again after a password reset (a signed-in session confirmed it
   * with a new code); refused silently when it is not the account's phone or needs nothing.
   */
  confirmPhoneAgain(userId: string, phone: string): Promise<void>;
  /**
   * The account that holds this email and, while it is a pending signup, its password hash
   * (`pendingHash`), in exactly two strongly consistent reads with small projections whatever
   * the answer (as `findByEmail`).
   */
  signupHolder(email: string): Promise<{ userId: string; pendingHash?: string } | undefined>;
  /**
   * Marks the pending signup that holds `email` as contested by another signup, adding that
   * signup's name, in one conditional write; never its password. Refused silently when the
   * holder is `signerId` itself (a fresh account), verified, or gone — the same round trip.
   */
  contestPendingSignup(
    holderId: string,
    email: string,
    name: string,
    signerId: string,
  ): Promise<void>;
  /**
   * Deletes a fresh signup's account and its email guard together, while the account is still
   * that untouched pending signup (not verified, contested nor recovered): a signup whose code could not be
   * queued leaves nothing behind. Refused silently otherwise.
   */
  withdrawSignup(userId: string, email: string): Promise<void>;
  /**
   * Activates a pending signup without signing in (verifyEmailOtp); false if the account is no
   * longer that pending signup (its contest state changed meanwhile: read it again).
   */
  activate(userId: string, activation: Activation): Promise<boolean>;
  /**
   * Makes the pending email the account's (verified) email, moving its uniqueness guard, in one
   * transaction.
   */
  confirmPendingEmail(user: User, email: string): Promise<PendingConfirmation>;
  /** Makes the pending phone the account's verified phone, claiming its guard, in one transaction. */
  confirmPendingPhone(user: User, phone: string): Promise<PendingConfirmation>;
  setOnlineStatus(userId: string, online: boolean): Promise<void>;
  /** Applies validated changes in one UpdateItem; returns the account as it now is. */
  update(userId: string, changes: ProfileChanges): Promise<User>;
}

/** Consecutive failed password checks of one email from one source, and its lock. */
export interface ThrottleState {
  failures: number;
  /** Epoch ms until which password checks are refused (0 when not locked). */
  lockedUntil: number;
}

/**
 * Failed-login throttling, kept per email and source (the IP API Gateway saw) whether or not an
 * account holds the email: the same items, the same calls, for a known and an unknown email; and
 * a stranger's guesses throttle the stranger's source, not the owner's (docs/accounts.md, "Login").
 */
export interface LoginThrottle {
  /** One strongly consistent read; a state whose window ended reads as none. */
  read(email: string, source: string, now: number): Promise<ThrottleState>;
  /** Counts a failure atomically; returns the count including this one. */
  recordFailure(email: string, source: string, now: number): Promise<number>;
  /** Refuses password checks until `lockedUntil` (epoch ms); never shortens a longer lock. */
  lock(email: string, source: string, lockedUntil: number): Promise<void>;
  /** Lifts every lock and count of the email (a password reset proved the inbox). */
  clear(email: string): Promise<void>;
}

/** Where a sign-in came from, as the session list shows it and the login throttle counts it. */
export interface SignInClient {
  /** The address that API Gateway saw, in full: what the session list shows. */
  address: string;
  /** Who the login throttle counts: the address, an IPv6 one by its /64. */
  source: string;
  /** The User-Agent header, as sent (truncated). */
  userAgent: string | null;
}

export interface NewSession {
  sessionId: string;
  userId: string;
  refreshTokenHash: string;
  /** The account as the sign-in leaves it: what its first refresh answers (`RefreshState`). */
  holder: PublicUser;
  client: SignInClient;
  /** Epoch ms. */
  now: number;
}

/** Creation times a session list keeps, both exclusive; epoch ms. */
export interface SessionWindow {
  createdAfter?: number;
  createdBefore?: number;
}

/** A live session, as its user sees it in the session list. Times are epoch ms. */
export interface SessionRecord {
  id: string;
  createdAt: number;
  lastUsedAt: number;
  ipAddress: string | null;
  userAgent: string | null;
}

/** What a successful sign-in changes on the account, in the session's own transaction. */
export interface SignInChanges {
  /** The password was checked from this email and source: lift its failure count and lock. */
  clearThrottle?: { email: string; source: string };
  /** A stronger hash of the password just checked (parameters were raised). */
  upgradedPasswordHash?: string;
  /** The activation this sign-in makes (verifySignupOtp). */
  activation?: Activation;
  /** The verified phone this sign-in proved (verifyOtp with purpose login): still the account's. */
  phone?: string;
  /**
   * The hash the password was checked against: the session starts only if it is still the
   * account's, so a password change or reset that lands first cannot be outlived by a sign-in
   * made with the old password.
   */
  checkedPasswordHash?: string;
}

/** A refresh token's item, as one read finds it. Times are epoch ms. */
export interface StoredRefreshToken {
  userId: string;
  sessionId: string;
  expiresAt: number;
  /** When it was rotated, if it was. */
  rotatedAt?: number;
  /** The key that signed the access token issued with its successor. */
  accessKid?: string;
  /**
   * The account as the token's item holds it while the token is current (a rotation takes it
   * off): what a refresh answers, held to the account by the refresh's write.
   */
  holder?: PublicUser;
}

export interface RefreshState {
  /** Undefined when no such token was ever issued (or it expired and was removed). */
  token?: StoredRefreshToken;
  /**
   * Its successor's item, when that successor was issued (as this key derives it), with its copy
   * of the account while it is current.
   */
  successor?: { holder?: PublicUser };
  /** The account, when the read was asked to read it (a token whose text names it). */
  user?: PublicUser;
  /** Hits already in the window of the pending hit read along, if one was. */
  hitsBefore?: number;
}

/** A request's pending hit, counted by a refresh's write if its window still holds `before` hits. */
export interface JoinedHit {
  pending: PendingHit;
  before: number;
}

/**
 * How a refresh's write ended. It is conditioned on the account still being what `holder` says
 * (the answer is made from it): when it is not, nothing is written and the account as it is now
 * comes back (`holder` undefined: it is gone).
 */
export type RefreshWrite =
  | { done: true }
  | { done: false; reason: 'already_rotated' | 'session_gone' | 'hit_moved' }
  | { done: false; reason: 'holder_changed'; holder?: PublicUser };

/** What a refresh's write is about: a live session of a user, answered as `holder`. */
export interface RefreshTarget {
  userId: string;
  sessionId: string;
  holder: PublicUser;
  /** The request's hit on its client's window, counted in the write. */
  hit?: JoinedHit;
}

export interface SessionRepository {
  /**
   * Writes the session, its first refresh token and the sign-in's account changes in one
   * transaction; fails (conflict) if the account vanished or its email, phone, contest state or
   * checked password changed meanwhile.
   */
  start(session: NewSession, changes: SignInChanges): Promise<void>;
  /**
   * One transactional read of the presented token's item and its successor's — and of the
   * window counter of `hit` and of the account `userId`, when given.
   */
  loadForRefresh(input: {
    tokenHash: string;
    successorHash: string;
    hit?: PendingHit;
    userId?: string;
  }): Promise<RefreshState>;
  /**
   * Marks the presented token used and stores its successor (holding `holder`), only if it was
   * unused, the session is live and the account is still `holder`: the conditional write that
   * makes refresh tokens single-use. The session records it as its last use. With `hit`, the
   * same transaction counts it, only if its window still holds `hit.before` hits.
   */
  rotate(
    input: RefreshTarget & {
      tokenHash: string;
      successorHash: string;
      /** The key that signs the access token issued with the successor. */
      accessKid: string;
      now: number;
    },
  ): Promise<RefreshWrite>;
  /**
   * The write of a refresh repeated within its grace, which rotates nothing: whether the session
   * is live and the account still `holder`, with the hit counted if given — one transaction.
   */
  confirm(input: RefreshTarget): Promise<RefreshWrite>;
  /** One strongly consistent read of the account, as answers show it. */
  holderOf(userId: string): Promise<PublicUser | undefined>;
  /** One strongly consistent read: whether the session exists for this user. */
  isLive(sessionId: string, userId: string): Promise<boolean>;
  /** One strongly consistent read of both: whether the session exists, and its user. */
  sessionWithUser(
    userId: string,
    sessionId: string,
  ): Promise<{ sessionLive: boolean; user?: User }>;
  /**
   * One page of the user's sessions not past their refresh lifetime and created within `window`,
   * in the order of their ids (a session's key): consistent Query calls with Limit, so a page
   * costs its own sessions, not every session the user ever had.
   */
  list(
    userId: string,
    now: number,
    window: SessionWindow,
    request: PageRequest,
  ): Promise<PageOf<SessionRecord>>;
  /**
   * Deletes one session: its access and refresh tokens stop working at once. False when the user
   * had no such session.
   */
  revoke(userId: string, sessionId: string): Promise<boolean>;
  /**
   * Deletes every session of the user, except `keepSessionId` if given. Reads strongly
   * consistently: a session whose start returned before this call began is always found.
   */
  revokeAll(userId: string, keepSessionId?: string): Promise<void>;
}

/** One-time codes as the account use-cases need them; the OTP engine implements this. */
export interface AccountCodes {
  /**
   * Issues a code for the target, asked for by `source` (the request's counting address), and
   * sends it; throws rate_limited during the source's cooldown or over a send cap. `subject` (a
   * user id) is whom the code proves the target for: verifying it answers that subject.
   */
  send(
    channel: 'email' | 'sms',
    target: string,
    purpose: AccountCodePurpose,
    source: string,
    subject?: string,
  ): Promise<void>;
  /**
   * Consumes a code (throws invalid_otp, otp_expired or too_many_attempts), then runs what it
   * proves with whom it was issued for; when that fails for a reason a retry may fix (not a
   * ServiceError), the code is put back for the retry. Wrong codes are counted for `source`.
   */
  verifyThen<T>(
    channel: 'email' | 'sms',
    target: string,
    purpose: AccountCodePurpose,
    code: string,
    effect: (proof: { subject?: string }) => Promise<T>,
    terms: { source: string },
  ): Promise<T>;
}

/** The security notices an account's email gets (docs/accounts.md, "Identity lifecycle"). */
export const securityNotices = [
  'password_changed',
  'password_reset',
  'email_change_requested',
  'phone_changed',
  'totp_enabled',
  'totp_removed',
  'recovery_codes_replaced',
  'passkey_added',
  'passkey_removed',
] as const;
export type SecurityNotice = (typeof securityNotices)[number];

export const accountCodeRequestKinds = [
  'signup',
  'forgot_password',
  'resend_email',
  'resend_mobile',
  'sms_login',
] as const;

/**
 * Work taken off the request path (docs/accounts.md, "Signup without enumeration", "Forgot
 * password"): the request only queues it, the same way whatever the target, and the account-code
 * worker looks the account up, issues the code and sends it (or, for a signup with a verified
 * email, the owner's notice). `target` is the lower-cased email, or the E.164 phone for
 * `resend_mobile` and `sms_login` (sendOtp's login code, docs/otp.md). `subject` names the account
 * a pending email or phone is proven for (a profile change, a signup's phone after activation).
 * Never a code: the worker issues it.
 */
export type AccountCodeRequest =
  /**
   * `source`: the counting address of the request that asked for the code (its send limits and
   * wrong codes are counted per source).
   */
  | {
      kind: (typeof accountCodeRequestKinds)[number];
      target: string;
      subject?: string;
      source: string;
    }
  /** A security notice to the account's email; `detail` is what it names (a new email). */
  | { kind: 'notice'; notice: SecurityNotice; target: string; detail?: string };

/** Hands code work to the account-code worker (SQS on AWS, in-process locally). */
export interface AccountCodeQueue {
  request(work: AccountCodeRequest): Promise<void>;
}

/**
 * At most one "someone tried to sign up with your email" notice per email and window: a
 * conditional marker, so neither an SQS redelivery nor a stream of signups mails the owner twice.
 */
export interface SignupNotices {
  /**
   * Reserves the notice of this email until `until` (epoch ms), unless a reservation made before
   * is still running at `now`. Answers the reservation's token, or undefined when refused.
   */
  reserve(email: string, now: number, until: number): Promise<string | undefined>;
  /** Gives a reservation back (its email could not be sent), so a retry may send it. */
  release(email: string, token: string): Promise<void>;
}
