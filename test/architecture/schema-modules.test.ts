import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The request schemas are grouped by feature, so a handler imports modules holding schemas it
 * does not use; and every definition imports the response schemas for its `answer`, which no
 * handler reads. esbuild drops those only if their valibot calls are marked pure (see
 * shared/http/schemas/fields.ts). One unmarked call keeps its schema, and what it reaches, in
 * every bundle that imports its module (answers-out-of-bundles.test.ts builds the bundles).
 */

const directory = resolve(import.meta.dirname, '..', '..', 'shared', 'http', 'schemas');
const schemaModules = readdirSync(directory).filter((file) => file.endsWith('.ts'));

/** The valibot calls of a module not preceded by the pure annotation, as `file: v.call(`. */
function unmarkedCalls(file: string): string[] {
  const text = readFileSync(resolve(directory, file), 'utf8');
  return [...text.matchAll(/(\/\* @__PURE__ \*\/ )?(?<![\w.])v\.\w+\(/g)]
    .filter((found) => found[1] === undefined)
    .map((found) => `${file}: ${found[0]}`);
}

describe('the schema modules', () => {
  it('mark every valibot call pure, so a bundle keeps only the schemas it uses', () => {
    expect(schemaModules).toEqual(expect.arrayContaining(['auth.ts', 'responses.ts']));
    expect(schemaModules.flatMap(unmarkedCalls)).toEqual([]);
  });
});
