import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { publicBaseUrls } from '../../shared/config.js';
import { apiHandler, Document } from '../../shared/http/api-handler.js';
import built from '../../shared/http/openapi.json' with { type: 'json' };
import { serversOf } from '../../shared/http/openapi-servers.js';
import { operation } from './openapi.operation.js';

/**
 * The document `npm run client:generate` built from the route table and schemas (a test keeps it
 * current), its servers taken from configuration (PUBLIC_BASE_URLS), never from the request: the
 * same bytes for every caller, whatever Host or X-Forwarded-* headers they send. Bundled rather
 * than built here, so a cold start does not convert every schema to JSON Schema.
 */
const document = new Document(
  { ...built, servers: serversOf(publicBaseUrls()) },
  { 'cache-control': 'public, max-age=300' },
);

/** GET /v1/openapi.json: the raw OpenAPI document (no envelope). */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async () => document,
);
