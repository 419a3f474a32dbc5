import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * docs/guide.md, run as a reader runs it: every `sh` block of the page, in order, in one bash,
 * against the service as a fresh `npm start` serves it (default limits, no setting), on ports of
 * its own that the page reads from `PORT` and `LOCAL_INBOX_PORT`. The page marks the answers
 * that are refusals (`# → 401 invalid_token`); every other call must succeed, and none may
 * answer 5xx.
 */

const page = readFileSync(resolve(import.meta.dirname, '../../docs/guide.md'), 'utf8');

/** The page's `sh` blocks, but those marked `<!-- not run: why -->`. */
const blocks = [...page.matchAll(/(<!-- not run:[^>]*-->\n)?```sh\n([\s\S]*?)\n```/g)]
  .filter((match) => match[1] === undefined)
  .map((match) => match[2] ?? '');

/** `# → 401 invalid_token` after a command: the status and code it answers, in page order. */
const declaredRefusals = blocks.flatMap((block) =>
  [...block.matchAll(/# → (\d{3}) (\w+)/g)].map((match) => `${match[1]} ${match[2]}`),
);

let service: LocalService;
const directory = mkdtempSync(join(tmpdir(), 'guide-'));

beforeAll(async () => {
  // As on a fresh clone: the default per-client limit; request lines logged to read statuses.
  service = await startLocalService({ RATE_LIMIT_PER_MINUTE: '', LOG_LEVEL: 'info' });
});

afterAll(async () => {
  await service?.stop();
  rmSync(directory, { recursive: true, force: true });
});

interface LoggedRequest {
  message: string;
  method: string;
  path: string;
  status: number;
}

/** The API requests the service logged, in order. */
const loggedRequests = (): LoggedRequest[] =>
  service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LoggedRequest)
    .filter((entry) => entry.message === 'request');

describe('docs/guide.md', () => {
  it('has commands to run, and marks its refusals', () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(declaredRefusals.length).toBeGreaterThan(3);
  });

  it('runs as written against a fresh npm start', { timeout: 120_000 }, async () => {
    const port = new URL(service.baseUrl).port;
    const inboxPort = new URL(service.inboxOrigin).port;
    const script = ['set -euo pipefail', ...blocks].join('\n');
    const before = loggedRequests().length;

    // The ports as a reader who started the service on other ones exports them: the page builds
    // every URL from these two variables.
    const run = await promisify(execFile)('bash', ['-c', script], {
      cwd: directory,
      env: { ...process.env, PORT: port, LOCAL_INBOX_PORT: inboxPort },
    });

    expect(run.stderr).toBe('');
    // A request of our own after the page's: once it is logged, every line before it is in.
    await fetch(`${service.baseUrl}/guide-finished`);
    const requests = await eventually(async () => {
      const logged = loggedRequests().slice(before);
      return logged.at(-1)?.path === '/guide-finished' ? logged.slice(0, -1) : undefined;
    });
    const refusals = requests.filter((request) => request.status >= 300);
    expect(refusals.every((request) => request.status < 500)).toBe(true);
    expect(refusals.map((request) => request.status)).toEqual(
      declaredRefusals.map((refusal) => Number(refusal.split(' ')[0])),
    );
    // What the page shows the reader, as it shows it.
    expect(run.stdout).toContain('"x_service_signature": "verified"');
    expect(run.stdout).toContain('X-Service-Signature verified');
    expect(run.stdout).toContain('{"status":"delivered","attempts_made":2}');
    for (const refusal of declaredRefusals) {
      expect(run.stdout).toContain(refusal.split(' ')[1]);
    }
  });
});
