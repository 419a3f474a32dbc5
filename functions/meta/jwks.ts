import { tokenKeys } from '../../shared/adapters/access-token-keys.js';
import { apiHandler, Document } from '../../shared/http/api-handler.js';

/**
 * GET /v1/.well-known/jwks.json: every active public key (raw JWKS, no envelope, as verifiers
 * expect). Cached for 5 minutes; a rotation publishes the new key before it signs (docs/accounts.md).
 */
export const handler = apiHandler({}, async () => {
  const { accessTokens } = await tokenKeys();
  return new Document(accessTokens.jwks(), { 'cache-control': 'public, max-age=300' });
});
