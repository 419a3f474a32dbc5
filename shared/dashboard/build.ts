import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * The developer dashboard: a single-page app (Preact) served at `/` of the API's origin, so it
 * calls `/v1` without CORS (docs/dashboard.md). It is built
 * here, by the local runtime at start and by the stack at synth (infra/dashboard-site.ts), into
 * the same files with the same headers. Synchronous, because CDK builds assets synchronously.
 */

const directory = fileURLToPath(new URL('./', import.meta.url));
const require = createRequire(import.meta.url);

export interface StaticFile {
  /** Where it is served, below `/` (`docs` is the reference page at `/docs`). */
  path: string;
  contentType: string;
  cacheControl: string;
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

/**
 * How long each kind of file may be kept. Pages are checked on every load (they name the current
 * build's assets); an asset's name carries the hash of its content, so a name is never reused for
 * other bytes and a browser or CDN may keep it for a year without asking again.
 */
export const cacheControl = {
  page: 'no-cache',
  asset: 'public, max-age=31536000, immutable',
};

const assetHeaders = { 'x-content-type-options': 'nosniff' };

export const contentTypes = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** `redoc.standalone.js` → `redoc.standalone-<hash of the bytes>.js`. */
const fingerprinted = (name: string, body: Buffer) => {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return name.replace(/(\.[a-z]+)$/, `-${hash}$1`);
};

/** Every `/assets/<name>` a page links to, replaced by its fingerprinted name. */
function linked(html: string, assets: Map<string, string>): string {
  return html.replace(/\/assets\/([\w.-]+)/g, (link, name: string) => {
    const served = assets.get(name);
    if (served === undefined) throw new Error(`The page links ${link}, which the build has not`);
    return `/assets/${served}`;
  });
}

/**
 * Redoc's sidebar footer shows its logo from cdn.redoc.ly. The reference's policy refuses it —
 * nothing a reader loads leaves the origin — and the refusal is a console error on every load. So
 * the footer's image is an empty one of this origin's policy (`data:`); its "API docs by Redocly"
 * link stays. Should a Redoc release stop loading that logo, the build says so.
 */
const redocLogo = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const emptyImage = JSON.stringify(
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='0' height='0'/%3E",
);

function withoutRemoteLogo(bundle: Buffer): Buffer {
  const source = bundle.toString('utf8');
  if (!source.includes(redocLogo)) {
    throw new Error(`Redoc's bundle no longer names ${redocLogo}: withoutRemoteLogo can go`);
  }
  return Buffer.from(source.replaceAll(redocLogo, emptyImage));
}

/**
 * The dashboard (`index.html`, its script and style) and the API reference (`docs`, its script
 * and Redoc's standalone bundle), minified, each asset named after its content. `localInbox`,
 * when given, is the local runtime's webhook inbox URL prefix: the dashboard offers it as an
 * endpoint URL.
 */
export function buildDashboard(options: { localInbox?: string } = {}): StaticFile[] {
  const result = buildSync({
    entryPoints: [
      { in: `${directory}app/main.tsx`, out: 'app' },
      { in: `${directory}app/styles.css`, out: 'app' },
      { in: `${directory}reference/reference.ts`, out: 'reference' },
    ],
    bundle: true,
    write: false,
    outdir: 'assets',
    entryNames: '[name]-[hash]',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const redoc = withoutRemoteLogo(
    readFileSync(require.resolve('redoc/bundles/redoc.standalone.js')),
  );
  const built = [
    ...result.outputFiles.map((file) => ({
      name: file.path.split('/').pop()!,
      body: Buffer.from(file.contents),
    })),
    { name: fingerprinted('redoc.standalone.js', redoc), body: redoc },
  ];
  // `app-3FZ5QXKD.js` is linked as `/assets/app.js` in the pages' sources.
  const assets = new Map(
    built.map(({ name }) => [name.replace(/-[A-Za-z0-9]+(\.[a-z]+)$/, '$1'), name]),
  );
  const inboxMeta =
    options.localInbox === undefined
      ? ''
      : `<meta name="local-inbox" content="${encodeURI(options.localInbox)}">`;
  const page = (source: string, headers: Record<string, string>, path: string): StaticFile => ({
    path,
    contentType: contentTypes.html,
    cacheControl: cacheControl.page,
    headers,
    body: Buffer.from(
      linked(
        readFileSync(`${directory}${source}`, 'utf8').replace('<!-- local -->', inboxMeta),
        assets,
      ),
    ),
  });
  return [
    page('app/index.html', pageHeaders.dashboard, 'index.html'),
    page('reference/index.html', pageHeaders.reference, 'docs'),
    ...built.map(({ name, body }) => ({
      path: `assets/${name}`,
      contentType: name.endsWith('.css') ? contentTypes.css : contentTypes.js,
      cacheControl: cacheControl.asset,
      headers: assetHeaders,
      body,
    })),
  ];
}
