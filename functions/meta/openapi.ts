import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { publicBaseUrls } from '../../shared/config.js';
import { apiHandler, Document } from '../../shared/http/api-handler.js';
import { openApiDocument } from '../../shared/http/openapi.js';
import { operation } from './openapi.operation.js';

/**
 * Built once per cold start from configuration (PUBLIC_BASE_URLS), never from the request: the
 * same bytes for every caller, whatever Host or X-Forwarded-* headers they send.
 */
const document = openApiDocument(publicBaseUrls());

/** GET /v1/openapi.json: the raw OpenAPI document (no envelope). */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async () => new Document(document, { 'cache-control': 'public, max-age=300' }),
);
