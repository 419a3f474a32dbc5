import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The developer dashboard: a single-page app (Preact) served at `/` of the API's origin, so it
 * calls `/v1` without CORS (contract.md, "Developer dashboard and API reference"). It is built
 * once here, by the local runtime at start and by the stack at synth, into the same three files.
 */

const directory = fileURLToPath(new URL('./', import.meta.url));
const require = createRequire(import.meta.url);

export interface StaticFile {
  /** Where it is served, below `/` (`docs` is the reference page at `/docs`). */
  path: string;
  contentType: string;
  headers: Record<string, string>;
  body: Buffer;
}

const commonHeaders = {
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const policy = (directives: string[]) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    ...directives,
  ].join('; ');

/**
 * The pages' security headers, wherever they are served (the local runtime sends them; on AWS a
 * response headers policy carries the same values). Everything a page loads is its own: no CDN,
 * no inline script, and it talks only to its own origin. The dashboard has no inline style either;
 * Redoc writes its styles into <style> elements at run time and searches in a blob: worker, so the
 * reference page allows exactly those two.
 */
export const pageHeaders = {
  dashboard: {
    ...commonHeaders,
    'content-security-policy': policy(["style-src 'self'"]),
  },
  reference: {
    ...commonHeaders,
    'content-security-policy': policy(["style-src 'self' 'unsafe-inline'", 'worker-src blob:']),
  },
} satisfies Record<string, Record<string, string>>;

const assetHeaders = { 'x-content-type-options': 'nosniff' };

const typeOf = (path: string) =>
  path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';

/**
 * The dashboard (`index.html`, `assets/app.js`, `assets/app.css`) and the API reference (`docs`,
 * `assets/reference.js`, `assets/redoc.standalone.js`), minified. `localInbox`, when given, is the
 * local runtime's webhook inbox URL prefix: the dashboard offers it as an endpoint URL.
 */
export async function buildDashboard(options: { localInbox?: string } = {}): Promise<StaticFile[]> {
  const result = await build({
    entryPoints: [
      { in: `${directory}app/main.tsx`, out: 'app' },
      { in: `${directory}app/styles.css`, out: 'app' },
      { in: `${directory}reference/reference.ts`, out: 'reference' },
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
  const built = result.outputFiles.map((file) => ({
    path: `assets/${file.path.split('/').pop()}`,
    contentType: typeOf(file.path),
    headers: assetHeaders,
    body: Buffer.from(file.contents),
  }));
  const redoc = await readFile(require.resolve('redoc/bundles/redoc.standalone.js'));
  const inboxMeta =
    options.localInbox === undefined
      ? ''
      : `<meta name="local-inbox" content="${encodeURI(options.localInbox)}">`;
  const dashboard = (await readFile(`${directory}app/index.html`, 'utf8')).replace(
    '<!-- local -->',
    inboxMeta,
  );
  const html = 'text/html; charset=utf-8';
  return [
    {
      path: 'index.html',
      contentType: html,
      headers: pageHeaders.dashboard,
      body: Buffer.from(dashboard),
    },
    {
      path: 'docs',
      contentType: html,
      headers: pageHeaders.reference,
      body: await readFile(`${directory}reference/index.html`),
    },
    {
      path: 'assets/redoc.standalone.js',
      contentType: typeOf('.js'),
      headers: assetHeaders,
      body: redoc,
    },
    ...built,
  ];
}
