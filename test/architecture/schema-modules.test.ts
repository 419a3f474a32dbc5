import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The request schemas are grouped by feature, so a handler imports modules holding schemas it
 * does not use; esbuild drops those only if their valibot calls are marked pure (see
 * shared/http/schemas/fields.ts). One unmarked call keeps its schema, and what it reaches, in
 * every bundle that imports its module.
 */

const directory = resolve(import.meta.dirname, '..', '..', 'shared', 'http', 'schemas');
// The response schemas feed the OpenAPI document only; no handler imports them.
const requestModules = readdirSync(directory).filter(
  (file) => file.endsWith('.ts') && file !== 'responses.ts',
);

/** The valibot calls of a module not preceded by the pure annotation, as `file: v.call(`. */
function unmarkedCalls(file: string): string[] {
  const text = readFileSync(resolve(directory, file), 'utf8');
  return [...text.matchAll(/(\/\* @__PURE__ \*\/ )?(?<![\w.])v\.\w+\(/g)]
    .filter((found) => found[1] === undefined)
    .map((found) => `${file}: ${found[0]}`);
}

describe('the request schema modules', () => {
  it('mark every valibot call pure, so a bundle keeps only the schemas it uses', () => {
    expect(requestModules).toContain('auth.ts');
    expect(requestModules.flatMap(unmarkedCalls)).toEqual([]);
  });
});
