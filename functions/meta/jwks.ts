import { tokenVerifier } from '../../shared/adapters/access-token-keys.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { apiHandler, Document } from '../../shared/http/api-handler.js';
import { operation } from './jwks.operation.js';

/**
 * GET /v1/.well-known/jwks.json: every active public key, as the issuers published them (raw
 * JWKS, no envelope, as verifiers expect). Cached for 5 minutes; a rotation publishes the new key
 * before it signs (docs/accounts.md).
 */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async () => {
  const verifier = await tokenVerifier();
  return new Document(verifier.jwks(), { 'cache-control': 'public, max-age=300' });
});
