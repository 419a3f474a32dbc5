import { ServiceError } from '../domain/errors.js';
import type { Principal } from '../http/api-handler.js';
import { tokenKeys } from './access-token-keys.js';
import { dynamoSessionRepository } from './session-repository.js';

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
 * session was revoked. Use with `authenticatedHandler({ authenticate, ... })`.
 */
export async function authenticate(authorization: string | undefined): Promise<Principal> {
  const token = bearerToken(authorization);
  if (token === undefined) {
    throw new ServiceError('unauthorized', 'Send an access token as Authorization: Bearer <token>');
  }
  const { accessTokens } = await tokenKeys();
  const claims = await accessTokens.verify(token);
  if (!(await dynamoSessionRepository.isLive(claims.sessionId, claims.userId))) {
    throw new ServiceError('invalid_token', 'The session of this access token has ended');
  }
  return claims;
}
