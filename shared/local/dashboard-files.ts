import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildDashboard } from '../dashboard/build.js';

/**
 * The developer dashboard at `/` and the API reference at `/docs` of the local runtime: the same
 * built files, with the same security and caching headers, that the stack serves. Answers GET and
 * HEAD of its own files only.
 */
export function dashboardFiles(localInbox: string) {
  const files = new Map(buildDashboard({ localInbox }).map((file) => [`/${file.path}`, file]));
  /** The dashboard's stylesheet, which the local inbox and outbox pages use too. */
  const stylesheet = [...files.keys()].find((path) => /^\/assets\/app-.*\.css$/.test(path))!;
  const serve = (request: IncomingMessage, response: ServerResponse, pathname: string): boolean => {
    const file = files.get(pathname === '/' ? '/index.html' : pathname);
    if (file === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return false;
    }
    response.writeHead(200, {
      ...file.headers,
      'content-type': file.contentType,
      'content-length': file.body.length,
      'cache-control': file.cacheControl,
    });
    response.end(request.method === 'HEAD' ? undefined : file.body);
    return true;
  };
  return { serve, stylesheet };
}
