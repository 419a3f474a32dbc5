import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Refresh tokens are opaque to clients: `<user id>.<session id>.<secret>`, the secret being 256
 * bits. The ids let one transactional read fetch the token, its session and its user together;
 * only the SHA-256 of the whole token is stored.
 *
 * A successor is not random but HMAC(key, presented token): two concurrent refreshes of one token
 * compute the same successor without the service ever storing a token it could leak, which is
 * how "the same successor within 10 seconds" holds with nothing but hashes in the table.
 */

/** Refresh-token lifetime (contract.md): 30 days from issue. */
export const refreshTokenSeconds = 30 * 24 * 60 * 60;

/** A rotated token presented again within this window gets the same successor (a race, not a theft). */
export const reuseGraceMs = 10_000;

export interface RefreshTokenParts {
  userId: string;
  sessionId: string;
}

const tokenPattern = /^(usr_[A-Za-z0-9_-]{22})\.(ses_[A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export const newRefreshToken = ({ userId, sessionId }: RefreshTokenParts): string =>
  `${userId}.${sessionId}.${randomBytes(32).toString('base64url')}`;

export function parseRefreshToken(token: string): RefreshTokenParts | undefined {
  const found = tokenPattern.exec(token);
  return found ? { userId: found[1]!, sessionId: found[2]! } : undefined;
}

export const hashRefreshToken = (token: string): string =>
  createHash('sha256').update(token).digest('base64url');

/** The token that replaces `token` on rotation; the same for every caller that presents it. */
export function successorOf(token: string, key: Uint8Array): string {
  const parts = parseRefreshToken(token);
  if (parts === undefined) throw new Error('successorOf needs a well-formed refresh token');
  const secret = createHmac('sha256', key).update(token).digest('base64url');
  return `${parts.userId}.${parts.sessionId}.${secret}`;
}
