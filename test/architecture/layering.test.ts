import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layering of docs/architecture.md, held by reading every module's imports:
 * functions → http → lambda → adapters → domain, and shared/ never imports from functions/.
 */

const root = resolve(import.meta.dirname, '..', '..');

function sourcesUnder(directory: string): string[] {
  return readdirSync(resolve(root, directory), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !file.includes('node_modules'))
    .map((file) => join(directory, file));
}

/** What a module imports: each specifier, relative ones resolved to a path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(resolve(root, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*'([^']+)'/g),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((found) => found[1]!);
  return specifiers.map((specifier) =>
    specifier.startsWith('.') ? relative(root, resolve(root, dirname(file), specifier)) : specifier,
  );
}

/** The imports of the modules under `directory` that `refused` says are out of their layer. */
function violations(directory: string, refused: (imported: string) => boolean): string[] {
  return sourcesUnder(directory).flatMap((file) =>
    importsOf(file)
      .filter(refused)
      .map((imported) => `${file} imports ${imported}`),
  );
}

describe('the layering', () => {
  it('keeps shared/ from importing the functions layer (the route table included)', () => {
    expect(violations('shared', (imported) => imported.startsWith('functions/'))).toEqual([]);
  });

  it('keeps the domain free of AWS, middy, Lambda types and the layers above it', () => {
    const outside = /^(@aws-sdk\/|@middy\/|aws-lambda$|shared\/(adapters|http|lambda|local)\/)/;
    expect(violations('shared/domain', (imported) => outside.test(imported))).toEqual([]);
  });

  it('keeps the adapters from importing the HTTP layer, the Lambda edge or the local stand-ins', () => {
    const above = /^(functions\/|shared\/(http|lambda|local)\/)/;
    expect(violations('shared/adapters', (imported) => above.test(imported))).toEqual([]);
  });

  it('reads the imports it judges (a module known to import functions/ is seen doing so)', () => {
    expect(importsOf('bin/local.ts')).toContain('functions/routes.js');
  });
});
