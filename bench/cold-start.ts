import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { routes } from '../functions/routes.js';
import { bundleAliases, esbuildOptions } from '../infra/bundling.js';
import { hostArchitecture, placeNativeBinding } from '../infra/native-binding.js';
import {
  measured,
  median,
  type Row,
  reasonOf,
  round,
  type Section,
  unavailable,
} from './report.js';
import { projectRoot } from './settings.js';

/** A handler may take this long to import relative to the DocumentClient-only floor. */
export const importBudgetRatio = 1.25;

const floorEntry = 'bench/floor/dynamodb-document-client.ts';

/**
 * What a function's environment holds on AWS, with placeholder values: module-scope code that
 * reads configuration at import must find it, as it would at a real cold start. Secrets come as
 * ARNs, read later (at the first request) through the extension, so importing never fetches one.
 */
const lambdaEnvironment: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  NODE_OPTIONS: '--enable-source-maps',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  TABLE_NAME: 'service',
  EMAIL_FROM: 'no-reply@example.com',
  DELIVERY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/delivery',
  INBOUND_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/inbound',
  SCHEDULER_GROUP_NAME: 'deliveries',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/scheduler',
  DELIVERY_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:delivery',
  JWT_SIGNING_KEYS_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:jwt',
  OTP_PEPPER_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:otp',
};

interface Bundle {
  name: string;
  entry: string;
  file?: string;
  bytes?: number;
  /** The heaviest contributors to the bundle, e.g. "@aws-sdk 180, libphonenumber-js 95". */
  largest?: string;
  failure?: string;
}

/** "node_modules/@aws-sdk/client-dynamodb/dist-es/x.js" → "@aws-sdk"; our own code → "service". */
function ownerOf(input: string): string {
  const found = /node_modules\/((?:@[^/]+)|[^/]+)/.exec(input);
  if (found === null) return 'service';
  return found[1]!.startsWith('@smithy') || found[1]!.startsWith('@aws') ? 'aws sdk' : found[1]!;
}

/** Bytes each package adds to the output, largest first (esbuild's metafile). */
function largestParts(metafile: Metafile, top = 3): string {
  const bytes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      bytes.set(ownerOf(input), (bytes.get(ownerOf(input)) ?? 0) + bytesInOutput);
    }
  }
  return [...bytes]
    .sort(([, a], [, b]) => b - a)
    .slice(0, top)
    .map(([owner, size]) => `${owner} ${Math.round(size / 1024)}`)
    .join(', ');
}

/** "functions/auth/login.ts" → "auth/login": one bundle per distinct entry, as the stack makes. */
const bundleName = (entry: string) => entry.replace(/^functions\//, '').replace(/\.ts$/, '');

async function bundle(entry: string, name: string, outDirectory: string): Promise<Bundle> {
  const outfile = join(outDirectory, name.replaceAll('/', '__'), 'index.mjs');
  try {
    const { metafile } = await build({
      ...esbuildOptions,
      // This machine's binary, as the stack places the function architecture's one.
      alias: bundleAliases(hostArchitecture()),
      entryPoints: [join(projectRoot, entry)],
      outfile,
      logLevel: 'silent',
      metafile: true,
    });
    placeNativeBinding(hostArchitecture(), dirname(outfile));
    return {
      name,
      entry,
      file: outfile,
      bytes: statSync(outfile).size,
      largest: largestParts(metafile),
    };
  } catch (error) {
    return { name, entry, failure: `esbuild: ${reasonOf(error)}` };
  }
}

/** Wall time of one fresh process of `node`, in ms; a failure carries its first stderr line. */
function timeProcess(node: string, args: string[]): { ms: number; failure?: string } {
  const started = performance.now();
  const result = spawnSync(node, args, {
    env: lambdaEnvironment,
    encoding: 'utf8',
    timeout: 30_000,
  });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    const line = (result.stderr || String(result.error ?? 'killed'))
      .split('\n')
      .find((text) => /Error|error/.test(text));
    return {
      ms,
      failure: `import failed: ${(line ?? `exit ${result.status}`).trim().slice(0, 140)}`,
    };
  }
  return { ms };
}

/** The version a node binary reports; a binary that does not run stops the section. */
function nodeVersion(node: string): string {
  const result = spawnSync(node, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) {
    throw new Error(`BENCH_COLD_NODE: ${node} does not run (${result.error ?? result.stderr})`);
  }
  return result.stdout.trim();
}

const importArgs = (file: string) => [
  '--input-type=module',
  '-e',
  `await import(${JSON.stringify(pathToFileURL(file).href)})`,
];

/**
 * Sizes of the function bundles of the last `cdk synth`, by route entry, if one ran: the
 * cross-check that our bundles are the ones the stack deploys. An asset is recognised by the one
 * `functions/` source its source map lists; of several (stale assets), the newest wins.
 */
function cdkAssetSizes(): { sizes: Map<string, number>; synthAt?: string } {
  const sizes = new Map<string, number>();
  const out = join(projectRoot, 'cdk.out');
  if (!existsSync(out)) return { sizes };
  const newest = new Map<string, number>();
  for (const name of readdirSync(out).filter((item) => item.startsWith('asset.'))) {
    const file = join(out, name, 'index.mjs');
    if (!existsSync(file) || !existsSync(`${file}.map`)) continue;
    try {
      const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources?: string[] };
      const entries = (map.sources ?? [])
        .map((source) => /(functions\/.+\.ts)$/.exec(source)?.[1])
        .filter((entry) => entry !== undefined);
      const { size, mtimeMs } = statSync(file);
      if (entries.length !== 1 || (newest.get(entries[0]!) ?? 0) > mtimeMs) continue;
      newest.set(entries[0]!, mtimeMs);
      sizes.set(entries[0]!, size);
    } catch {
      // An asset that is not a function bundle of ours (or a map being rewritten): not ours to judge.
    }
  }
  return { sizes, synthAt: statSync(out).mtime.toISOString() };
}

/**
 * Bundles every distinct route entry with the stack's esbuild options, then imports each bundle in
 * fresh processes of `node` (this one, or BENCH_COLD_NODE: the Lambda runtime's major, say),
 * interleaved round by round with a bare `node -e ''` and the floor bundle so that load from other
 * work on the machine hits all of them alike.
 */
export async function coldStartSection(
  runs: number,
  node: string,
  filter?: string,
): Promise<Section> {
  const outDirectory = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const version = nodeVersion(node);
    const entries = [...new Set(routes.map((route) => route.entry))].filter(
      (entry) => filter === undefined || bundleName(entry).includes(filter),
    );
    const floor = await bundle(floorEntry, 'floor: DynamoDB DocumentClient only', outDirectory);
    const bundles = await Promise.all(
      entries.map((entry) => bundle(entry, bundleName(entry), outDirectory)),
    );
    const timed = [floor, ...bundles].filter((item) => item.file !== undefined);
    const samples = new Map<string, number[]>(timed.map((item) => [item.name, []]));
    const failures = new Map<string, string>();
    const bare: number[] = [];
    for (let pass = 0; pass < runs; pass += 1) {
      bare.push(timeProcess(node, ['-e', '']).ms);
      for (const item of timed) {
        if (failures.has(item.name)) continue;
        const result = timeProcess(node, importArgs(item.file!));
        if (result.failure) failures.set(item.name, result.failure);
        else samples.get(item.name)!.push(result.ms);
      }
    }
    const bareMs = median(bare);
    const importMs = (item: Bundle) => median(samples.get(item.name)!) - bareMs;
    const floorMs = floor.file && !failures.has(floor.name) ? importMs(floor) : undefined;

    const cdk = cdkAssetSizes();
    const rowOf = (item: Bundle): Row => {
      const failure = item.failure ?? failures.get(item.name);
      if (failure !== undefined) return unavailable(item.name, failure);
      const ms = importMs(item);
      const ratio = floorMs === undefined ? undefined : ms / floorMs;
      return measured(item.name, {
        kib: round(item.bytes! / 1024, 1),
        import_ms: round(ms, 1),
        vs_floor: ratio === undefined ? null : round(ratio, 2),
        budget: ratio === undefined ? null : ratio <= importBudgetRatio ? 'ok' : 'OVER',
        cdk_kib: cdk.sizes.has(item.entry) ? round(cdk.sizes.get(item.entry)! / 1024, 1) : null,
        largest: item.largest ?? null,
      });
    };
    const rows = [rowOf(floor), ...bundles.map(rowOf)];
    const over = rows.filter((row) => row.figures.budget === 'OVER').map((row) => row.name);
    const mapBytes = existsSync(`${floor.file}.map`) ? readFileSync(`${floor.file}.map`).length : 0;
    return {
      id: 'cold-start',
      title: `Cold start: bundle size and import time (median of ${runs} fresh processes)`,
      columns: [
        { key: 'kib', label: 'KiB' },
        { key: 'import_ms', label: 'import ms' },
        { key: 'vs_floor', label: '× floor' },
        { key: 'budget', label: `≤ ${importBudgetRatio}×` },
        { key: 'cdk_kib', label: 'cdk.out KiB' },
        { key: 'largest', label: 'largest parts (KiB)' },
      ],
      rows,
      notes: [
        `import ms = median wall time of \`node --input-type=module -e "await import(bundle)"\` minus a bare \`node -e ''\` (${round(bareMs, 1)} ms), NODE_OPTIONS=--enable-source-maps as on the stack; imported by node ${version}${node === process.execPath ? ' (this one)' : ` (${node})`}, nodejs24.x on Lambda.`,
        `Bundles built with infra/bundling.ts (esbuild ${esbuildOptions.format}, ${esbuildOptions.target}, minified, SDK bundled); floor source map ${round(mapBytes / 1024, 1)} KiB.`,
        over.length === 0
          ? `Every handler within ${importBudgetRatio}× the floor's import time.`
          : `Over the ${importBudgetRatio}× budget: ${over.join(', ')}.`,
        'Anchor: Node 20 Lambdas with bundled SDK v3 init in 178–226 ms at 124–216 KB; unbundled 490–538 ms (perpil/sso-coldstart-benchmark-cdk). Lambda init also includes the runtime bootstrap, so compare ratios, not absolutes.',
        cdk.synthAt === undefined
          ? 'cdk.out KiB: no cdk.out here (`npm run synth` adds the deployed bundles as a cross-check).'
          : `cdk.out KiB: the same function's bundle from the last \`cdk synth\` (${cdk.synthAt}); it matches ours unless the code changed since.`,
      ],
    };
  } finally {
    rmSync(outDirectory, { recursive: true, force: true });
  }
}
