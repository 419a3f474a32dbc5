import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The API's generated files are checked in: the typed client's types (shared/http/client/
 * api-types.ts) and the OpenAPI document GET /v1/openapi.json serves (shared/http/openapi.json).
 * Both must be what `npm run client:generate` makes from the code today, or a client built on the
 * types expects answers the service no longer gives and the served document describes another API.
 */

const root = resolve(import.meta.dirname, '..', '..');
const types = resolve(root, 'shared', 'http', 'client', 'api-types.ts');
const document = resolve(root, 'shared', 'http', 'openapi.json');
const directory = mkdtempSync(join(tmpdir(), 'api-contract-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const check = (typesFile: string, documentFile: string) =>
  spawnSync(
    process.execPath,
    ['--import', 'tsx', 'bin/generate-api-contract.ts', '--check', typesFile, documentFile],
    { cwd: root, encoding: 'utf8' },
  );

/** A copy of a checked-in file as a route change leaves it behind. */
function stale(file: string, from: string, to: string): string {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  const copy = join(directory, file.split('/').at(-1)!);
  writeFileSync(copy, text.replace(from, to));
  return copy;
}

describe('the checked-in API files', () => {
  it('are what the code gives', () => {
    const run = check(types, document);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('are refused once the client types differ from the document', () => {
    const run = check(stale(types, 'refresh_token: string;', 'refresh_token?: string;'), document);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('api-types.ts is not what the code gives');
    expect(run.stderr).toContain('run npm run client:generate');
  });

  it('are refused once the served document differs from the code', () => {
    const run = check(types, stale(document, '"/auth/signup"', '"/auth/sign-up"'));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('openapi.json is not what the code gives');
  });
});
