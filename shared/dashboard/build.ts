import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The developer dashboard: a single-page app (Preact) served at `/` of the API's origin, so it
 * calls `/v1` without CORS (contract.md, "Developer dashboard and API reference"). It is built
 * once here, by the local runtime at start and by the stack at synth, into the same three files.
 */

const appDirectory = fileURLToPath(new URL('./app/', import.meta.url));

export interface StaticFile {
  path: string;
  contentType: string;
  body: Buffer;
}

/**
 * The page's security headers, wherever it is served (the local runtime sends them, CloudFront's
 * response headers policy carries the same values). Everything the page loads is its own: no
 * inline script or style, no CDN, and it talks only to its own origin.
 */
export const dashboardContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const dashboardHeaders: Record<string, string> = {
  'content-security-policy': dashboardContentSecurityPolicy,
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * `index.html`, `assets/app.js` and `assets/app.css`, minified. `localInbox`, when given, is the
 * local runtime's webhook inbox URL prefix: the page offers it as an endpoint URL.
 */
export async function buildDashboard(options: { localInbox?: string } = {}): Promise<StaticFile[]> {
  const result = await build({
    entryPoints: [
      { in: `${appDirectory}main.tsx`, out: 'app' },
      { in: `${appDirectory}styles.css`, out: 'app' },
    ],
    bundle: true,
    write: false,
    outdir: 'assets',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = result.outputFiles.map((file) => ({
    path: `assets/${file.path.split('/').pop()}`,
    contentType: file.path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript',
    body: Buffer.from(file.contents),
  }));
  const template = await readFile(`${appDirectory}index.html`, 'utf8');
  const inboxMeta =
    options.localInbox === undefined
      ? ''
      : `<meta name="local-inbox" content="${encodeURI(options.localInbox)}">`;
  const html = template.replace('<!-- local -->', inboxMeta);
  return [
    { path: 'index.html', contentType: 'text/html; charset=utf-8', body: Buffer.from(html) },
    ...assets,
  ];
}
