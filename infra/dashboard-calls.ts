import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpMethod } from '../shared/http/operation.js';

/**
 * The API calls the developer dashboard makes, read from its own sources: what the stage's
 * CloudFront distribution relays to the API, and nothing else (docs/dashboard.md,
 * "On AWS"). Written down nowhere else, so a call added to the dashboard is relayed by
 * the next synth, and one removed stops being relayed.
 *
 * What counts as a call:
 * - the typed client's `.GET('/path', …)`, `.POST(…)`, `.PUT(…)`, `.PATCH(…)`, `.DELETE(…)`
 *   (shared/http/client, the only way the dashboard calls the API), its path a string literal
 *   below `/v1`;
 * - a `/v1/…` address written in a page or script (the reference page's document): fetched
 *   with GET.
 * Anything that would hide a call from this reading fails the synth instead: a typed call whose
 * path is not a string literal, or a `fetch(` of the dashboard's own.
 */

/** One call of the dashboard: its method and its route's path below `/v1` (`/webhooks/{id}`). */
export interface DashboardCall {
  method: HttpMethod;
  path: string;
}

/** The dashboard's sources: the app, and the reference page (shared/dashboard). */
export const dashboardSourceDirectory = fileURLToPath(
  new URL('../shared/dashboard/', import.meta.url),
);

const typedCall = /\.(GET|POST|PUT|PATCH|DELETE)\(\s*(?:'([^'\n]*)'|"([^"\n]*)"|`([^`$\n]*)`)?/g;
const documentAddress = /["'`(]\/v1(\/[^"'`)\s?#]*)/g;
const ownFetch = /(?<![.\w])fetch\(/;

/** The calls one source file makes; throws when a call cannot be read from it. */
export function callsIn(file: string, source: string): DashboardCall[] {
  const calls: DashboardCall[] = [];
  if (ownFetch.test(source)) {
    throw new Error(
      `${file} calls fetch(): the dashboard calls the API through the typed client only, so that its calls can be relayed`,
    );
  }
  for (const match of source.matchAll(typedCall)) {
    const path = match[2] ?? match[3] ?? match[4];
    if (path === undefined) {
      throw new Error(
        `${file}: an API call (${match[0].trim()}) whose path is not a string literal; the relay cannot know it`,
      );
    }
    calls.push({ method: match[1] as HttpMethod, path });
  }
  for (const match of source.matchAll(documentAddress)) {
    calls.push({ method: 'GET', path: match[1] ?? '' });
  }
  return calls;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|html)$/.test(entry.name) ? [path] : [];
  });
}

/** Every call the dashboard's sources make, each once, in a stable order. */
export function dashboardCalls(directory = dashboardSourceDirectory): DashboardCall[] {
  const unique = new Map<string, DashboardCall>();
  for (const file of sourceFiles(directory)) {
    // The builder of the site names no call of the page's own.
    if (relative(directory, file) === 'build.ts') continue;
    for (const call of callsIn(relative(directory, file), readFileSync(file, 'utf8'))) {
      unique.set(`${call.method} ${call.path}`, call);
    }
  }
  return [...unique.values()].sort((a, b) =>
    `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`),
  );
}
