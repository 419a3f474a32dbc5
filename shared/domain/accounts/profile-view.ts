import { sessionEnded } from './access-tokens.js';
import type { AccountDeps } from './deps.js';
import { accountGone, type User } from './user.js';

/*
 * Apart from profile.ts, whose updates check passwords: reading a profile hashes nothing, and its
 * function carries no password hashing.
 */

/**
 * The caller's own profile. The caller's access token is verified, its session not yet: it is
 * read here together with the profile, and a session that ended answers as authentication
 * would. Round trips: 1 (a consistent batch read of session and account).
 */
export async function getProfile(
  deps: AccountDeps,
  caller: { userId: string; sessionId: string },
): Promise<User> {
  const { sessionLive, user } = await deps.sessions.sessionWithUser(
    caller.userId,
    caller.sessionId,
  );
  if (!sessionLive) throw sessionEnded();
  if (user === undefined) throw accountGone();
  return user;
}
