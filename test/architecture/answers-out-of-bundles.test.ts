import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.js';
import { bundleAliases, esbuildOptions } from '../../infra/bundling.js';

/**
 * Each definition module exports its operation's `answer` beside the `operation` its handler
 * imports; the answer names response schemas (shared/http/schemas/responses.ts), and a
 * receiver's what its sender sends (shared/http/schemas/inbound.ts), that only the OpenAPI
 * document needs. esbuild drops them from a handler's bundle only while every top-level
 * expression of that module is pure-marked and free of spreads and property reads: one slip
 * keeps them, and what they import, in every bundle. The bundles are built as the stack builds
 * them; esbuild's metafile says which source files put bytes into each.
 */
/** What only the document reads: the response schemas, and what receivers are sent. */
const documentOnly = ['shared/http/schemas/responses.ts', 'shared/http/schemas/inbound.ts'];

describe('the answers declared beside the operations', () => {
  it('stay out of every handler bundle', async () => {
    const entries = [...new Set(routes.map((route) => route.entry))];
    const carrying: string[] = [];
    for (const entry of entries) {
      const result = await build({
        ...esbuildOptions,
        alias: bundleAliases('x86_64'),
        entryPoints: [entry],
        outfile: 'out/index.mjs',
        write: false,
        sourcemap: false,
        metafile: true,
        logLevel: 'silent',
      });
      const output = Object.values(result.metafile.outputs).find((file) => file.entryPoint);
      for (const file of documentOnly) {
        if ((output?.inputs[file]?.bytesInOutput ?? 0) > 0) carrying.push(`${entry}: ${file}`);
      }
    }
    expect(entries.length).toBeGreaterThan(40);
    expect(carrying).toEqual([]);
  }, 120_000);
});
