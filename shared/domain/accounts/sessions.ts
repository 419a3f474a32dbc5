import { ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import { type PendingHit, rateLimited } from '../rate-limit.js';
import { accessTokenSeconds } from './access-tokens.js';
import type { AccountDeps } from './deps.js';
import type { SessionRecord, SignInChanges, SignInClient } from './ports.js';
import {
  hashRefreshToken,
  newRefreshToken,
  parseRefreshToken,
  reuseGraceMs,
  successorOf,
} from './refresh-tokens.js';
import { newId, type User } from './user.js';

/** A session signed in: its tokens, and whose they are (the API's token answer is its view). */
export interface SignedIn {
  accessToken: string;
  /** Seconds the access token lives. */
  expiresIn: number;
  refreshToken: string;
  user: User;
}

const invalidRefreshToken = (message = 'The refresh token is invalid or expired') =>
  new ServiceError('invalid_token', message);

async function signedInAs(
  deps: AccountDeps,
  user: User,
  sessionId: string,
  refreshToken: string,
): Promise<SignedIn> {
  const { accessTokens } = await deps.tokenKeys();
  return {
    accessToken: await accessTokens.issue({ userId: user.id, sessionId }),
    expiresIn: accessTokenSeconds,
    refreshToken,
    user,
  };
}

/**
 * Signs a user in: a new session with its first refresh token, written together with the
 * account changes the sign-in implies (online, throttle lifted, email activated) in one
 * transaction. The caller has already established who the user is (password, OTP).
 */
export async function startSession(
  deps: AccountDeps,
  user: User,
  client: SignInClient,
  changes: SignInChanges,
): Promise<SignedIn> {
  const sessionId = newId('ses');
  const refreshToken = newRefreshToken({ userId: user.id, sessionId });
  await deps.sessions.start(
    {
      sessionId,
      userId: user.id,
      refreshTokenHash: hashRefreshToken(refreshToken),
      client,
      now: deps.clock.now(),
    },
    changes,
  );
  const { activation } = changes;
  const signedIn: User =
    activation === undefined
      ? { ...user, onlineStatus: true }
      : {
          ...user,
          onlineStatus: true,
          emailVerified: true,
          name: activation.name,
          pendingPhone: activation.contested ? null : user.pendingPhone,
          passwordResetRequired: activation.contested || user.passwordResetRequired,
        };
  return signedInAs(deps, signedIn, sessionId, refreshToken);
}

/** How a refresh ended: the Refreshes metric's outcome, with the pair or the refusal. */
type RefreshResult =
  | { outcome: 'rotated' | 'grace'; tokens: SignedIn }
  | { outcome: 'reuse_detected' | 'refused'; refusal: ServiceError };

/**
 * Exchanges a refresh token for a new pair (rotation). The token is single-use by a conditional
 * write; a token presented again within 10 seconds (two tabs refreshing at once) gets the same
 * successor, and one presented later is treated as stolen: its whole session is revoked.
 *
 * `hit` is the request's pending hit on its client's rate-limit window: read along with the
 * token and counted by the rotation's own transaction, so a refresh is two round trips in all,
 * the limiter's included. A path that writes nothing (an invalid token, the grace path) leaves
 * it to the HTTP layer, which counts it alone; a hit over the limit is refused before anything
 * is written.
 * Round trips: one transactional read, one transactional write (+1 for a reuse's revocation,
 * +2 when another request of the same client moved its counter in between).
 */
export async function refreshSession(
  deps: AccountDeps,
  presented: string,
  hit?: PendingHit,
): Promise<SignedIn> {
  const result = await exchange(deps, presented, hit);
  metrics.count('Refreshes', { Outcome: result.outcome });
  if ('refusal' in result) throw result.refusal;
  return result.tokens;
}

async function exchange(
  deps: AccountDeps,
  presented: string,
  hit: PendingHit | undefined,
): Promise<RefreshResult> {
  const refused = (message?: string): RefreshResult => ({
    outcome: 'refused',
    refusal: invalidRefreshToken(message),
  });
  const parts = parseRefreshToken(presented);
  if (parts === undefined) return refused();
  const tokenHash = hashRefreshToken(presented);
  const { refreshSuccessorKey } = await deps.tokenKeys();
  const successor = successorOf(presented, refreshSuccessorKey);
  /** Counts the hit alone unless it is counted already; refuses a request over the limit. */
  const countAlone = async () => {
    await hit?.count();
    if (hit?.decision?.allowed === false) throw rateLimited(hit.decision, hit.window.scope);
  };

  // Two passes: a refresh that loses the race to rotate re-reads and takes the grace path. A
  // third only after a moved counter, which cannot happen twice (the hit is counted then).
  let passes = 2;
  for (let pass = 0; pass < passes; pass++) {
    const pending = hit?.counted ? undefined : hit;
    const state = await deps.sessions.loadForRefresh(
      parts.userId,
      parts.sessionId,
      tokenHash,
      pending,
    );
    const hitsBefore = state.hitsBefore ?? 0;
    if (pending !== undefined && hitsBefore >= pending.limit) await countAlone();
    const now = deps.clock.now();
    if (state.token === undefined || state.token.expiresAt <= now) return refused();
    if (!state.sessionLive || state.user === undefined) {
      return refused('The session of this refresh token has ended');
    }
    const { rotatedAt } = state.token;
    if (rotatedAt !== undefined) {
      if (now - rotatedAt <= reuseGraceMs) {
        return {
          outcome: 'grace',
          tokens: await signedInAs(deps, state.user, parts.sessionId, successor),
        };
      }
      await countAlone();
      await deps.sessions.revoke(parts.userId, parts.sessionId);
      return {
        outcome: 'reuse_detected',
        refusal: invalidRefreshToken(
          'This refresh token was already used; the session has been revoked. Log in again',
        ),
      };
    }
    const outcome = await deps.sessions.rotate({
      userId: parts.userId,
      sessionId: parts.sessionId,
      tokenHash,
      successorHash: hashRefreshToken(successor),
      now,
      hit: pending === undefined ? undefined : { pending, before: hitsBefore },
    });
    if (outcome === 'rotated') {
      pending?.countedAfter(hitsBefore);
      return {
        outcome: 'rotated',
        tokens: await signedInAs(deps, state.user, parts.sessionId, successor),
      };
    }
    if (outcome === 'session_gone') return refused('The session of this refresh token has ended');
    // Another request of this client was counted meanwhile: count this one alone, then rotate
    // again from a fresh read (the token may have been rotated meanwhile too).
    if (outcome === 'hit_moved') {
      await countAlone();
      passes += 1;
    }
  }
  return refused();
}

/**
 * Ends the session of the presented access token, if it is ours (even expired); the user goes
 * offline once no session is left. Never fails on a bad token: logout must always succeed
 * (service-interface.md).
 */
export async function logout(deps: AccountDeps, accessToken: string | undefined): Promise<void> {
  if (accessToken === undefined) return;
  const claims = await (await deps.tokenVerifier()).verifyForLogout(accessToken);
  if (claims === undefined) return;
  await endSession(deps, claims);
}

/** A session as its user sees it in `GET /v1/auth/sessions`. */
export interface SessionSummary extends SessionRecord {
  /** The session of the access token that asked. */
  current: boolean;
}

/** The caller's live sessions, newest first. Round trips: 1 consistent Query. */
export async function listSessions(
  deps: AccountDeps,
  caller: { userId: string; sessionId: string },
): Promise<SessionSummary[]> {
  const sessions = await deps.sessions.list(caller.userId, deps.clock.now());
  return sessions.map((session) => ({ ...session, current: session.id === caller.sessionId }));
}

/**
 * Ends one session of the user: its access and refresh tokens stop at once. The user goes
 * offline when it was the last. False when the user has no such session (another user's id is
 * simply not found: sessions live in their user's partition).
 */
export async function endSession(
  deps: AccountDeps,
  session: { userId: string; sessionId: string },
): Promise<boolean> {
  if (!(await deps.sessions.revoke(session.userId, session.sessionId))) return false;
  const left = await deps.sessions.list(session.userId, deps.clock.now());
  if (left.length === 0) await deps.users.setOnlineStatus(session.userId, false);
  return true;
}

/** Ends every session of the user, the caller's included, and sets the user offline. */
export async function endAllSessions(deps: AccountDeps, userId: string): Promise<void> {
  await deps.sessions.revokeAll(userId);
  await deps.users.setOnlineStatus(userId, false);
}
