import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The typed client's types (shared/http/client/api-types.ts) are checked in; they must be what
 * `npm run client:generate` makes from the document the code produces today, or a client built on
 * them types answers the service no longer gives.
 */

const root = resolve(import.meta.dirname, '..', '..');
const checkedIn = resolve(root, 'shared', 'http', 'client', 'api-types.ts');
const directory = mkdtempSync(join(tmpdir(), 'client-types-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const check = (file: string) =>
  spawnSync(
    process.execPath,
    ['--import', 'tsx', 'bin/generate-client-types.ts', '--check', file],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );

describe('the checked-in client types', () => {
  it('are what the OpenAPI document gives', () => {
    const run = check(checkedIn);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('are refused once they differ from the document', () => {
    const stale = join(directory, 'api-types.ts');
    // What a route change leaves behind: a field the document no longer has.
    writeFileSync(
      stale,
      readFileSync(checkedIn, 'utf8').replace('refresh_token: string;', 'refresh_token?: string;'),
    );
    const run = check(stale);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('run npm run client:generate');
  });
});
