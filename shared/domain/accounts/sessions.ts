import { epochSeconds } from '../clock.js';
import { ServiceError } from '../errors.js';
import { metrics } from '../metrics.js';
import { assertReachable, type PageOf, type PageRequest } from '../pages.js';
import { type PendingHit, rateLimited } from '../rate-limit.js';
import { assertWindow } from '../webhooks/windows.js';
import { type AccessTokenStamp, accessTokenSeconds } from './access-tokens.js';
import type { AccountDeps } from './deps.js';
import {
  dropsSignup,
  type RefreshState,
  type RefreshTarget,
  type RefreshWrite,
  type SessionRecord,
  type SignInChanges,
  type SignInClient,
  type StoredRefreshToken,
} from './ports.js';
import {
  accessTokenIdOf,
  hashRefreshToken,
  newRefreshToken,
  type PresentedToken,
  readRefreshToken,
  reuseGraceMs,
  successorOf,
} from './refresh-tokens.js';
import { newId, type PublicUser, type User } from './user.js';

/** A session signed in: its tokens, and whose they are (the API's token answer is its view). */
export interface SignedIn {
  accessToken: string;
  /** Seconds the access token has left to live. */
  expiresIn: number;
  refreshToken: string;
  user: PublicUser;
}

const invalidRefreshToken = (message = 'The refresh token is invalid or expired') =>
  new ServiceError('invalid_token', message);

/** The pair of a session, its access token new or, with `stamp`, issued again. */
async function signedInAs(
  deps: AccountDeps,
  user: PublicUser,
  sessionId: string,
  refreshToken: string,
  stamp?: AccessTokenStamp,
): Promise<SignedIn> {
  const { accessTokens } = await deps.tokenKeys();
  const now = deps.clock.now();
  const issuedAt = stamp?.issuedAt ?? now;
  return {
    accessToken: await accessTokens.issue({ userId: user.id, sessionId }, stamp),
    expiresIn: accessTokenSeconds - (epochSeconds(now) - epochSeconds(issuedAt)),
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
  const refreshToken = newRefreshToken();
  const { activation } = changes;
  const signedIn: User =
    activation === undefined
      ? { ...user, onlineStatus: true }
      : {
          ...user,
          onlineStatus: true,
          emailVerified: true,
          name: activation.name,
          pendingPhone: dropsSignup(activation) ? null : user.pendingPhone,
          passwordResetRequired: dropsSignup(activation) || user.passwordResetRequired,
          signupContested: false,
          signupRecovery: false,
        };
  await deps.sessions.start(
    {
      sessionId,
      userId: user.id,
      refreshTokenHash: hashRefreshToken(refreshToken),
      holder: signedIn,
      client,
      now: deps.clock.now(),
    },
    changes,
  );
  return signedInAs(deps, signedIn, sessionId, refreshToken);
}

/** How a refresh ended: the Refreshes metric's outcome, with the pair or the refusal. */
type RefreshResult =
  | { outcome: 'rotated' | 'grace'; tokens: SignedIn }
  | { outcome: 'reuse_detected' | 'refused'; refusal: ServiceError };

/**
 * Exchanges a refresh token for a new pair (rotation). The token is single-use by a conditional
 * write; a token presented again within 10 seconds (two tabs refreshing at once) gets the same
 * successor pair — the same refresh token and the same access token, computed again from the
 * presented token (refresh-tokens.ts), never stored — and one presented later is treated as
 * stolen: its whole session is revoked.
 *
 * The token is opaque, so one read finds its item by its hash — with its successor's and the
 * request's rate-limit window — and one write does the rest: rotates it (or, within the grace,
 * confirms the session), counts the request's pending `hit`, and holds the account to the copy
 * the token's item keeps, which is what the answer shows. Two round trips in all, the limiter's
 * included; +1 when the account changed since the token was issued (the write answers it as it
 * is now, and is made again), +1 for a reuse's revocation, +2 when another request of the same
 * client moved its counter in between. A path that writes nothing (an invalid token) leaves the
 * hit to the HTTP layer, which counts it alone; a hit over the limit is refused before anything
 * is written.
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

const refused = (message?: string): RefreshResult => ({
  outcome: 'refused',
  refusal: invalidRefreshToken(message),
});

const sessionGone = () => refused('The session of this refresh token has ended');

/** The stored token, if it is the presented one's and still usable at `now`. */
function usable(
  state: RefreshState,
  shape: PresentedToken,
  now: number,
): StoredRefreshToken | undefined {
  const { token } = state;
  if (token === undefined || token.expiresAt <= now) return undefined;
  // A token whose text names its ids must name the stored ones.
  if (
    shape.kind === 'named' &&
    (token.userId !== shape.userId || token.sessionId !== shape.sessionId)
  ) {
    return undefined;
  }
  return token;
}

/**
 * A refresh's one write, held to the account as `copy` shows it. When the account changed since
 * that copy was taken, the write answers it as it is now and is made again with it — three tries
 * at most: accounts are not edited many times a second. Undefined when the account is gone.
 */
async function writeHeldTo(
  copy: PublicUser | undefined,
  write: (holder: PublicUser) => Promise<RefreshWrite>,
): Promise<{ written: RefreshWrite; holder: PublicUser } | undefined> {
  let holder = copy;
  for (let tries = 1; holder !== undefined; tries++) {
    const written = await write(holder);
    if (written.done || written.reason !== 'holder_changed' || tries === 3) {
      return { written, holder };
    }
    holder = written.holder;
  }
  return undefined;
}

async function exchange(
  deps: AccountDeps,
  presented: string,
  hit: PendingHit | undefined,
): Promise<RefreshResult> {
  const shape = readRefreshToken(presented);
  if (shape === undefined) return refused();
  const { refreshSuccessorKey, accessTokens } = await deps.tokenKeys();
  const successor = successorOf(presented, refreshSuccessorKey);
  const accessTokenId = accessTokenIdOf(presented, refreshSuccessorKey);
  const tokenHash = hashRefreshToken(presented);
  const successorHash = hashRefreshToken(successor);
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
    const state = await deps.sessions.loadForRefresh({
      tokenHash,
      successorHash,
      hit: pending,
      // A token of the old shape names its user: read the account along (its item holds none).
      userId: shape.kind === 'named' ? shape.userId : undefined,
    });
    const hitsBefore = state.hitsBefore ?? 0;
    if (pending !== undefined && hitsBefore >= pending.limit) await countAlone();
    const now = deps.clock.now();
    const token = usable(state, shape, now);
    if (token === undefined) return refused();
    const { userId, sessionId, rotatedAt } = token;
    const joined = pending === undefined ? undefined : { pending, before: hitsBefore };
    const graced = rotatedAt !== undefined && now - rotatedAt <= reuseGraceMs;
    if (rotatedAt !== undefined && !graced) {
      await countAlone();
      await deps.sessions.revoke(userId, sessionId);
      return {
        outcome: 'reuse_detected',
        refusal: invalidRefreshToken(
          'This refresh token was already used; the session has been revoked. Log in again',
        ),
      };
    }
    // Within the grace the successor was issued as this key derives it, unless the signing seeds
    // changed meanwhile: then there is no pair to give again.
    if (graced && state.successor === undefined) return refused();
    // The pair a rotation issues, and issues again within its grace: the same stamp each time.
    const stamp: AccessTokenStamp = graced
      ? { id: accessTokenId, issuedAt: rotatedAt, kid: token.accessKid }
      : { id: accessTokenId, issuedAt: now, kid: accessTokens.signerKid };
    const copy =
      (graced ? state.successor?.holder : (token.holder ?? state.user)) ??
      (await deps.sessions.holderOf(userId));
    const held = await writeHeldTo(copy, (holder) => {
      const target: RefreshTarget = { userId, sessionId, holder, hit: joined };
      return graced
        ? deps.sessions.confirm(target)
        : deps.sessions.rotate({
            ...target,
            tokenHash,
            successorHash,
            accessKid: accessTokens.signerKid,
            now,
          });
    });
    if (held === undefined) return sessionGone();
    const { written, holder } = held;
    if (written.done) {
      pending?.countedAfter(hitsBefore);
      return {
        outcome: graced ? 'grace' : 'rotated',
        tokens: await signedInAs(deps, holder, sessionId, successor, stamp),
      };
    }
    if (written.reason === 'session_gone') return sessionGone();
    if (written.reason === 'holder_changed') {
      // Changed at every try: nothing was written, so the same token works again.
      throw new ServiceError(
        'conflict',
        'The account changed while the refresh was made; the refresh token is unused, try again',
      );
    }
    // Another request of this client was counted meanwhile: count this one alone, then start
    // again from a fresh read (the token may have been rotated meanwhile too).
    if (written.reason === 'hit_moved') {
      await countAlone();
      passes += 1;
    }
    // already_rotated: another refresh of the token won; the next pass takes the grace path.
  }
  return refused();
}

/**
 * Ends the session of the presented access token, if it is ours (even expired); the user goes
 * offline once no session is left. Never fails on a bad token: logout must always succeed
 * (docs/accounts.md, "Sessions and refresh tokens").
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

/**
 * One page of the caller's live sessions created within `window` (ISO bounds, both exclusive),
 * the caller's marked. Round trips: 1 consistent Query a page.
 */
export async function listSessions(
  deps: AccountDeps,
  caller: { userId: string; sessionId: string },
  window: { createdAfter?: string; createdBefore?: string },
  request: PageRequest,
): Promise<PageOf<SessionSummary>> {
  const bounds = { after: 'created_after', before: 'created_before' };
  assertWindow(window, bounds);
  assertReachable(request);
  const found = await deps.sessions.list(
    caller.userId,
    deps.clock.now(),
    {
      createdAfter: window.createdAfter === undefined ? undefined : Date.parse(window.createdAfter),
      createdBefore:
        window.createdBefore === undefined ? undefined : Date.parse(window.createdBefore),
    },
    request,
  );
  return {
    ...found,
    items: found.items.map((session) => ({ ...session, current: session.id === caller.sessionId })),
  };
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
  const left = await deps.sessions.list(
    session.userId,
    deps.clock.now(),
    {},
    { page: 1, perPage: 1 },
  );
  if (left.items.length === 0 && left.next === undefined) {
    await deps.users.setOnlineStatus(session.userId, false);
  }
  return true;
}

/** Ends every session of the user, the caller's included, and sets the user offline. */
export async function endAllSessions(deps: AccountDeps, userId: string): Promise<void> {
  await deps.sessions.revokeAll(userId);
  await deps.users.setOnlineStatus(userId, false);
}
