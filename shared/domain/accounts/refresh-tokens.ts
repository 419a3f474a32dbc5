import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Refresh tokens are opaque: 256 random bits (43 base64url characters) that say nothing about
 * whose they are. Only the SHA-256 of a token is stored, on its item (`REFRESH#<hash>`), which
 * names its user and session: a refresh finds the session by the hash of what it is given.
 *
 * A successor is not random but HMAC(key, presented token): two concurrent refreshes of one token
 * compute the same successor without the service ever storing a token it could leak, which is
 * how "the same successor pair within 10 seconds" holds with nothing but hashes in the table. The
 * access token of the pair is derived the same way (`accessTokenIdOf`; access-tokens.ts signs
 * deterministically), so the whole pair is computed again, never stored.
 *
 * Tokens issued before they were opaque read `<user id>.<session id>.<secret>`: they keep working
 * until they expire or rotate (their successor is opaque), and their ids are only checked against
 * the stored item's.
 */

/** Refresh-token lifetime (docs/accounts.md, "Sessions and refresh tokens"): 30 days from issue. */
export const refreshTokenSeconds = 30 * 24 * 60 * 60;

/** A rotated token presented again within this window gets the same successor pair (a race, not a theft). */
export const reuseGraceMs = 10_000;

/** What a presented token's text tells before any lookup. */
export type PresentedToken =
  | { kind: 'opaque' }
  /** Issued before tokens were opaque: its text names its user and session. */
  | { kind: 'named'; userId: string; sessionId: string };

const opaquePattern = /^[A-Za-z0-9_-]{43}$/;
const namedPattern = /^(usr_[A-Za-z0-9_-]{22})\.(ses_[A-Za-z0-9_-]{22})\.[A-Za-z0-9_-]{43}$/;

export const newRefreshToken = (): string => randomBytes(32).toString('base64url');

/** The shape of a token we could have issued, or undefined (refused without a lookup). */
export function readRefreshToken(token: string): PresentedToken | undefined {
  if (opaquePattern.test(token)) return { kind: 'opaque' };
  const named = namedPattern.exec(token);
  return named ? { kind: 'named', userId: named[1]!, sessionId: named[2]! } : undefined;
}

export const hashRefreshToken = (token: string): string =>
  createHash('sha256').update(token).digest('base64url');

/** The token that replaces `token` on rotation; the same for every caller that presents it. */
export const successorOf = (token: string, key: Uint8Array): string =>
  createHmac('sha256', key).update(token).digest('base64url');

/**
 * The `jti` of the access token issued with `token`'s successor: the same for every caller that
 * presents `token`, and unguessable without the key and the token. Shaped as an RFC 9562 UUIDv8
 * (the version for custom, here keyed-hash, layouts), as random ones are UUIDs too.
 */
export function accessTokenIdOf(token: string, key: Uint8Array): string {
  const bytes = createHmac('sha256', key).update(`access-token-id\0${token}`).digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
