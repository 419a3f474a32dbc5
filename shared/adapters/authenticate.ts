import { sessionEnded } from '../domain/accounts/access-tokens.js';
import { ServiceError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import { tokenVerifier } from './access-token-keys.js';
import { dynamoSessionRepository } from './dynamo-sessions.js';

/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const found = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  return found?.[1];
}

/**
 * Resolves the Authorization header of an authenticated route to its caller: the EdDSA access
 * token is verified (signature, kid, iss, aud, exp), then ONE strongly consistent GetItem checks
 * that its session still exists — so logout, password change and reset take effect on the very
 * next call, unlike a plain stateless JWT.
 *
 * Throws unauthorized when no Bearer token is sent, invalid_token when it is bad, expired or its
 * session was revoked. Handed to `apiHandler` as the edge's `authenticate`.
 */
export async function authenticate(authorization: string | undefined): Promise<Principal> {
  const claims = await authenticateDeferringSessionCheck(authorization);
  if (!(await dynamoSessionRepository.isLive(claims.sessionId, claims.userId))) {
    throw sessionEnded();
  }
  return claims;
}

/**
 * Like `authenticate` without the session read: for an operation whose use-case reads the
 * session itself, in the same round trip as what it needs anyway (getProfile reads the session
 * with the profile), and answers `sessionEnded()` before anything else when it is gone.
 */
export async function authenticateDeferringSessionCheck(
  authorization: string | undefined,
): Promise<Principal> {
  const token = bearerToken(authorization);
  if (token === undefined) {
    throw new ServiceError('unauthorized', 'Send an access token as Authorization: Bearer <token>');
  }
  return (await tokenVerifier()).verify(token);
}
