import { ServiceError } from '../errors.js';
import type { AccountDeps } from './deps.js';
import { type PublicUser, publicUser } from './user.js';

/*
 * Apart from profile.ts, whose updates check passwords: reading a profile hashes nothing, and its
 * function carries no password hashing.
 */

/** The caller's own profile. Round trips: 1 read (after the session check). */
export async function getProfile(deps: AccountDeps, userId: string): Promise<PublicUser> {
  const user = await deps.users.get(userId);
  if (user === undefined) throw new ServiceError('invalid_token', 'The account no longer exists');
  return publicUser(user);
}
