import { apiHandler, Document } from '../../shared/http/api-handler.js';
import { openApiDocument } from '../../shared/http/openapi.js';

/** GET /v1/openapi.json: the raw OpenAPI document (no envelope), for the caller's host. */
export const handler = apiHandler({}, async ({ headers }) => {
  const host = headers['x-forwarded-host'] ?? headers.host ?? 'localhost:3000';
  const scheme =
    headers['x-forwarded-proto'] ?? (/^(localhost|127\.)/.test(host) ? 'http' : 'https');
  return new Document(openApiDocument(`${scheme}://${host}/v1`), {
    'cache-control': 'public, max-age=300',
  });
});
