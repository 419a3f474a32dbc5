import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { argon2Bindings, type LambdaArchitecture } from './native-binding.js';

/**
 * The esbuild options of every Lambda bundle, written once. The stack maps them onto
 * NodejsFunction's bundling (`service-function.ts`), and the benchmark bundles the same entries
 * with esbuild directly — so this module imports nothing from CDK.
 *
 * Use: `build({ ...esbuildOptions, alias: bundleAliases(architecture), entryPoints: [entry],
 * outfile: 'out/index.mjs' })`. The AWS SDK is bundled (not external): each function then carries
 * only the clients it imports, tree-shaken, instead of resolving the whole SDK that the runtime
 * ships. Native binaries (`*.node`) stay external: the one a bundle requires is placed beside it
 * (infra/native-binding.ts).
 */
export const esbuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  // An external .map next to the bundle; NODE_OPTIONS=--enable-source-maps reads it. Without the
  // sources' text it stays small, and stack traces still name our files and lines.
  sourcemap: true,
  sourcesContent: false,
  // Prefer the ESM build of dependencies (the SDK ships both): smaller and tree-shakable.
  mainFields: ['module', 'main'],
  banner: {
    // CommonJS code inside an ESM bundle calls require() for Node built-ins; without a real
    // require the SDK fails at run time with "Dynamic require of node:https is not supported".
    js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  },
  external: ['*.node'],
} satisfies BuildOptions;

/**
 * Modules replaced in every bundle: `@node-rs/argon2` by the shim that loads the architecture's
 * binary from beside the bundle (infra/native-binding.ts), and the SDK's default credential
 * chain by its environment provider, all a Lambda function uses
 * (bundle-shims/credentials-from-environment.ts).
 */
export const bundleAliases = (architecture: LambdaArchitecture): Record<string, string> => ({
  '@node-rs/argon2': argon2Bindings[architecture].shim,
  '@aws-sdk/credential-provider-node': fileURLToPath(
    new URL('./bundle-shims/credentials-from-environment.ts', import.meta.url),
  ),
});
