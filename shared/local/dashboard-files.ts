import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildDashboard, dashboardHeaders } from '../dashboard/build.js';

/**
 * The developer dashboard at `/` of the local runtime, as CloudFront serves it on AWS: the same
 * built files with the same security headers. Answers GET and HEAD of its own files only.
 */
export async function dashboardFiles(localInbox: string) {
  const files = new Map(
    (await buildDashboard({ localInbox })).map((file) => [`/${file.path}`, file]),
  );
  return (request: IncomingMessage, response: ServerResponse, pathname: string): boolean => {
    const file = files.get(pathname === '/' ? '/index.html' : pathname);
    if (file === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return false;
    }
    response.writeHead(200, {
      ...dashboardHeaders,
      'content-type': file.contentType,
      'content-length': file.body.length,
      // Not fingerprinted: a reload always checks for a newer build.
      'cache-control': 'no-cache',
    });
    response.end(request.method === 'HEAD' ? undefined : file.body);
    return true;
  };
}
