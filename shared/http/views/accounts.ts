import { isChallenge, type SignInOutcome } from '../../domain/accounts/mfa-challenge.js';
import type { StoredPasskey } from '../../domain/accounts/passkeys.js';
import type { ProfileUpdateResult } from '../../domain/accounts/profile.js';
import type { SessionSummary, SignedIn } from '../../domain/accounts/sessions.js';
import type { ActivationResponse } from '../../domain/accounts/signup-activation.js';
import type { PublicUser } from '../../domain/accounts/user.js';

/**
 * The public (snake_case) shapes of the account answers (the OpenAPI document); the use-cases
 * return domain objects.
 */

/** The `user` object of API responses: no hash, no internal state. */
export const userView = (user: PublicUser) => ({
  id: user.id,
  name: user.name,
  email: user.email,
  phone: user.phone,
  pending_email: user.pendingEmail,
  pending_phone: user.pendingPhone,
  gender: user.gender,
  online_status: user.onlineStatus,
  email_verified: user.emailVerified,
  // Whether the phone signs in by SMS: false again after a password reset, until confirmed.
  phone_verified: user.phone !== null && !user.phoneConfirmationRequired,
  mfa_enabled: user.totpEnabled,
  created_at: user.createdAt,
});

/** The data of every token-bearing answer. */
export const signedInView = (session: SignedIn) => ({
  access_token: session.accessToken,
  token_type: 'Bearer' as const,
  expires_in: session.expiresIn,
  refresh_token: session.refreshToken,
  user: userView(session.user),
});

/**
 * A sign-in's answer: the tokens, or — for an account with a second factor — the ticket that
 * `POST /v1/auth/mfa/verify` exchanges for them with a code.
 */
export const signInView = (outcome: SignInOutcome) =>
  isChallenge(outcome)
    ? { mfa_required: true as const, mfa_ticket: outcome.ticket, expires_in: outcome.expiresIn }
    : signedInView(outcome);

/** verifySignupOtp: the token answer, and whether the owner must now choose a password. */
export const activationView = (activation: ActivationResponse) => ({
  ...signedInView(activation),
  password_reset_required: activation.passwordResetRequired,
});

/** A passkey in `GET /v1/auth/passkeys`. */
export const passkeyView = (passkey: StoredPasskey) => ({
  id: passkey.id,
  device_type: passkey.deviceType === 'multiDevice' ? 'multiDevice' : 'singleDevice',
  backed_up: passkey.backedUp,
  created_at: new Date(passkey.createdAt).toISOString(),
  last_used_at:
    passkey.lastUsedAt === undefined ? null : new Date(passkey.lastUsedAt).toISOString(),
});

/** A session in `GET /v1/auth/sessions`. */
export const sessionView = (session: SessionSummary) => ({
  id: session.id,
  created_at: new Date(session.createdAt).toISOString(),
  last_used_at: new Date(session.lastUsedAt).toISOString(),
  user_agent: session.userAgent,
  ip_address: session.ipAddress,
  current: session.current,
});

/** signup and forgotPassword: whether the email must be verified first, and what to tell. */
export const codeRequestView = <T extends { verificationRequired: boolean; message: string }>({
  verificationRequired,
  message,
  ...rest
}: T) => ({ ...rest, verification_required: verificationRequired, message });

/** The profile update: the user, and which new values wait for their code (by request field). */
export const profileUpdateView = (result: ProfileUpdateResult) => ({
  user: userView(result.user),
  verification_required: result.verificationRequired.map((what) =>
    what === 'phone' ? ('phone_number' as const) : what,
  ),
});
