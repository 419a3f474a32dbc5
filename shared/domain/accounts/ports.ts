import type { User } from './user.js';

/** What the account use-cases need from storage; DynamoDB adapters implement these. */

/** Profile fields a caller may change (already validated and normalised). */
export interface ProfileChanges {
  name?: string;
  email?: string;
  phone?: string;
  gender?: string;
  onlineStatus?: boolean;
}

/** Where an email stands: no account holds it, or one holds it unverified or verified. */
export type EmailStanding = 'none' | 'unverified' | 'verified';

/** How an account's creation went; a taken email names the account that holds it. */
export type AccountCreation =
  | { outcome: 'created' }
  | { outcome: 'email_taken'; holderId: string }
  | { outcome: 'phone_taken' };

export interface UserRepository {
  /**
   * Creates the account and claims its email (and phone) in one transaction, so two concurrent
   * signups with one email cannot both succeed. Answers which claim failed, if one did; the
   * holder of a taken email comes back from the failed transaction itself (no read).
   */
  create(user: User): Promise<AccountCreation>;
  get(userId: string): Promise<User | undefined>;
  /** Two reads: the email guard, then the account (strongly consistent). */
  findByEmail(email: string): Promise<User | undefined>;
  /**
   * Whether an account holds this email and has verified it, in exactly two strongly consistent
   * reads whatever the answer (the guard, then the account; a random absent account when there is
   * no guard), so neither the round trips nor their count tell a known email from an unknown one.
   */
  emailStanding(email: string): Promise<EmailStanding>;
  findIdByPhone(phone: string): Promise<string | undefined>;
  /** Counts a wrong password atomically; returns the count including this one. */
  recordFailedLogin(userId: string): Promise<number>;
  /** Refuses password checks until `lockedUntil` (epoch ms); never shortens a longer lock. */
  lockLogin(userId: string, lockedUntil: number): Promise<void>;
  /**
   * Replaces the password hash only if it is still `expectedHash` (no lost update between two
   * concurrent changes), clearing the failure counter. False when it changed meanwhile.
   */
  replacePasswordHash(userId: string, expectedHash: string, newHash: string): Promise<boolean>;
  /**
   * A signup's name and password on the account that holds its email, in one conditional write,
   * only while that account is a pending signup (never verified, email unchanged since the
   * signup): the latest signup's name and password win. Refused silently otherwise.
   */
  replacePendingSignup(
    userId: string,
    email: string,
    name: string,
    passwordHash: string,
  ): Promise<void>;
  /** Marks the email verified if the account still has this email. False otherwise. */
  markEmailVerified(userId: string, email: string): Promise<boolean>;
  /** Marks the phone verified if the account still has this phone. False otherwise. */
  markPhoneVerified(userId: string, phone: string): Promise<boolean>;
  setOnlineStatus(userId: string, online: boolean): Promise<void>;
  /**
   * Applies validated changes and returns the account as it now is. Name, gender and online
   * status alone need no `current` (one UpdateItem). A new email or phone needs `current`: its
   * uniqueness guard moves in the same transaction and it becomes unverified; a taken one throws
   * conflict naming the field.
   */
  update(current: User | undefined, userId: string, changes: ProfileChanges): Promise<User>;
}

export interface NewSession {
  sessionId: string;
  userId: string;
  refreshTokenHash: string;
  /** Epoch ms. */
  now: number;
}

/** What a successful sign-in changes on the account, in the session's own transaction. */
export interface SignInChanges {
  /** The password was checked: clear the failure counter (and lock). */
  clearFailures?: boolean;
  /** A stronger hash of the password just checked (parameters were raised). */
  upgradedPasswordHash?: string;
  /** The email this sign-in proved (verifySignupOtp). */
  verifiedEmail?: string;
  /** The phone this sign-in proved (verifyOtp with purpose login). */
  verifiedPhone?: string;
  /**
   * The hash the password was checked against: the session starts only if it is still the
   * account's, so a password change or reset that lands first cannot be outlived by a sign-in
   * made with the old password.
   */
  checkedPasswordHash?: string;
}

export interface RefreshState {
  /** Undefined when no such token was ever issued (or it expired and was removed). */
  /** Epoch ms. */
  token?: { expiresAt: number; rotatedAt?: number };
  sessionLive: boolean;
  user?: User;
}

export interface SessionRepository {
  /**
   * Writes the session, its first refresh token and the sign-in's account changes in one
   * transaction; fails (conflict) if the account vanished or its email, phone or checked
   * password changed meanwhile.
   */
  start(session: NewSession, changes: SignInChanges): Promise<void>;
  /** One transactional read of the token, its session and its user. */
  loadForRefresh(userId: string, sessionId: string, tokenHash: string): Promise<RefreshState>;
  /**
   * Marks the presented token used and stores its successor, only if it was unused and the
   * session is live: the conditional write that makes refresh tokens single-use.
   */
  rotate(input: {
    userId: string;
    sessionId: string;
    tokenHash: string;
    successorHash: string;
    now: number;
  }): Promise<'rotated' | 'already_rotated' | 'session_gone'>;
  /** One strongly consistent read: whether the session exists for this user. */
  isLive(sessionId: string, userId: string): Promise<boolean>;
  /** Deletes one session: its access and refresh tokens stop working at once. */
  revoke(userId: string, sessionId: string): Promise<void>;
  /**
   * Deletes every session of the user, except `keepSessionId` if given. Reads strongly
   * consistently: a session whose start returned before this call began is always found.
   */
  revokeAll(userId: string, keepSessionId?: string): Promise<void>;
}

/** Why a code was sent; each purpose has its own codes, lifetimes and budgets (docs/otp.md). */
export type CodePurpose = 'signup' | 'password_reset' | 'verification';

/** One-time codes as the account use-cases need them; the OTP engine implements this. */
export interface AccountCodes {
  /** Issues a code for the target and sends it; throws rate_limited during a cooldown. */
  send(channel: 'email' | 'sms', target: string, purpose: CodePurpose): Promise<void>;
  /** Consumes a code; throws invalid_otp, otp_expired or too_many_attempts. */
  verify(
    channel: 'email' | 'sms',
    target: string,
    purpose: CodePurpose,
    code: string,
  ): Promise<void>;
}

export const accountCodeRequestKinds = [
  'signup',
  'forgot_password',
  'resend_email',
  'resend_mobile',
] as const;

/**
 * Code work taken off the request path (docs/accounts.md, "Signup without enumeration", "Forgot
 * password"): the request only queues it, the same way whatever the target, and the account-code
 * worker looks the account up, issues the code and sends it (or, for a signup with a verified
 * email, the owner's notice). `target` is the lower-cased email, or the E.164 phone for
 * `resend_mobile`. Never a code: the worker issues it.
 */
export interface AccountCodeRequest {
  kind: (typeof accountCodeRequestKinds)[number];
  target: string;
}

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
