/**
 * `npm run bench`: cold start, per-operation cost, password hashing, delivery throughput and the
 * machine's ceiling, side by side in one run. Prints a table per section and writes the figures
 * as JSON (bench/results.json) and Markdown (bench/results.md). Counts: see settings.ts.
 *
 * Every section runs what exists: an operation that still answers 501, or a module not written
 * yet, is a "not available: <reason>" row, never a crashed run.
 */
import './environment.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, relative } from 'node:path';
import type { LocalRuntime } from '../shared/local/runtime.js';
import { type Ceiling, ceilingSection } from './ceiling.js';
import { coldStartSection } from './cold-start.js';
import type { ProfileSummary } from './cpu-profile.js';
import { deliverySection } from './delivery-section.js';
import { DynamoCallCounter } from './dynamo-counter.js';
import { goalsSection, profilesSection } from './goals.js';
import { isSweeperPoll, operationsSection } from './operations.js';
import { passwordHashingSection } from './password-hashing.js';
import {
  markdownSection,
  reasonOf,
  renderSection,
  round,
  type Section,
  unavailable,
} from './report.js';
import { readSettings, type SectionId } from './settings.js';

const settings = readSettings();
const sections: Section[] = [];
/** Errors thrown by background work of the in-process service: reported, never fatal to the run. */
const warnings: string[] = [];
const warn = (error: unknown) => {
  warnings.push(reasonOf(error));
  console.error(`bench: background error (recorded, run continues): ${reasonOf(error)}`);
};
process.on('unhandledRejection', warn);
process.on('uncaughtException', warn);
const wanted = (id: SectionId) => settings.sections.includes(id);

/** Runs one section; whatever it throws becomes a single "not available" row. */
async function run(id: SectionId, title: string, work: () => Promise<Section>): Promise<Section> {
  const started = performance.now();
  process.stdout.write(`… ${title}\n`);
  let section: Section;
  try {
    section = await work();
  } catch (error) {
    section = { id, title, columns: [], rows: [unavailable(title, reasonOf(error))], notes: [] };
  }
  section.durationSeconds = round((performance.now() - started) / 1000, 1);
  sections.push(section);
  console.log(renderSection(section));
  return section;
}

let runtime: LocalRuntime | undefined;
let runtimeFailure: string | undefined;

/** The local runtime, started once in this process (it brings DynamoDB Local). */
async function localRuntime(): Promise<LocalRuntime> {
  if (runtime) return runtime;
  if (runtimeFailure) throw new Error(runtimeFailure);
  try {
    const { startLocalRuntime } = await import('../shared/local/runtime.js');
    const table = await import('../functions/routes.js');
    runtime = await startLocalRuntime({ table, port: 0, verbose: false });
    return runtime;
  } catch (error) {
    runtimeFailure = `local runtime did not start: ${reasonOf(error)}`;
    throw new Error(runtimeFailure);
  }
}

async function stopRuntime(): Promise<void> {
  const running = runtime;
  runtime = undefined;
  await running?.close();
}

process.once('SIGINT', () => {
  void stopRuntime().finally(() => process.exit(130));
});

const startedAt = new Date();
const loadBefore = loadavg();
console.log(
  `npm run bench${settings.quick ? ' (BENCH_QUICK)' : ''}: ${settings.sections.join(', ')} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
);

if (wanted('cold-start')) {
  await run('cold-start', 'Cold start', () =>
    coldStartSection(settings.coldStartRuns, settings.coldStartNode, settings.coldStartFilter),
  );
}
if (wanted('hashing')) {
  await run('hashing', 'Password hashing', () => passwordHashingSection(settings.hashIterations));
}
/** Each path's CPU profile, for the profiles section. */
const profiles: Record<string, ProfileSummary> = {};
// Before this process starts its own runtime: the delivery measurement starts one of its own.
if (wanted('delivery')) {
  await run('delivery', 'Delivery', async () => {
    const result = await deliverySection({
      deliveries: settings.deliveries,
      fanOut: settings.fanOut,
      warmUp: settings.deliveryWarmUp,
    });
    if (result.profile !== undefined)
      profiles['webhook delivery (service process)'] = result.profile;
    return result.section;
  });
}
let ceiling: Ceiling = {};
let httpP50: number | undefined;
if (wanted('ceiling')) {
  await run('ceiling', 'Ceiling', async () => {
    const result = await ceilingSection(settings.ceilingSeconds, async () => {
      await localRuntime();
      return process.env.DYNAMODB_ENDPOINT!;
    });
    ceiling = result.ceiling;
    const sequential = result.section.rows.find(
      (row) => row.name === 'bare node:http, 1 in flight',
    );
    httpP50 =
      typeof sequential?.figures.p50_ms === 'number' ? sequential.figures.p50_ms : undefined;
    return result.section;
  });
}
if (wanted('operations')) {
  await run('operations', 'Per operation', async () => {
    const service = await localRuntime();
    const counter = new DynamoCallCounter(isSweeperPoll);
    counter.install();
    const result = await operationsSection(
      service,
      counter,
      settings.operationIterations,
      ceiling,
      httpP50,
    );
    Object.assign(profiles, result.profiles);
    return result.section;
  });
}
await stopRuntime();

// The delivery section ran before the ceiling was known: add its ratio to DynamoDB Local's.
const throughput = sections
  .find((section) => section.id === 'delivery')
  ?.rows.find((row) => row.available && row.name.startsWith('throughput'));
const { deliveries_per_second: rate, ddb_item_writes_per_delivery: writes } =
  throughput?.figures ?? {};
const deliveryNotes = sections.find((section) => section.id === 'delivery')?.notes;
if (typeof rate === 'number' && typeof writes === 'number' && deliveryNotes !== undefined) {
  if (ceiling.dynamoPutPerSecond !== undefined) {
    const allowed = ceiling.dynamoPutPerSecond / writes;
    deliveryNotes.push(
      `DynamoDB Local took at most ${round(ceiling.dynamoPutPerSecond)} PutItems/s in this run (ceiling section): at ${writes} item writes per delivery it allows ${round(allowed)} deliveries/s, of which ${rate} is ${round((rate / allowed) * 100, 1)} %.`,
    );
  }
  if (ceiling.dynamoDeliveryWritesPerSecond !== undefined) {
    const allowed = ceiling.dynamoDeliveryWritesPerSecond;
    deliveryNotes.push(
      `With nothing else running, DynamoDB Local took the writes of ${round(allowed)} deliveries/s (ceiling section): ${rate} is ${round((rate / allowed) * 100, 1)} % of it.`,
    );
  }
}
if (Object.keys(profiles).length > 0) {
  sections.push(profilesSection(profiles));
  console.log(renderSection(sections.at(-1)!));
}
sections.unshift(goalsSection(sections, ceiling));
console.log(renderSection(sections[0]!));

const results = {
  generated_at: startedAt.toISOString(),
  duration_seconds: round((Date.now() - startedAt.getTime()) / 1000, 1),
  machine: {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? null,
    memory_gib: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    // The machine is shared: load says how much the figures may be disturbed.
    load_average_before: loadBefore.map((value) => round(value)),
    load_average_after: loadavg().map((value) => round(value)),
  },
  // Where the figures went, from the project's root: the file is kept in the repository.
  settings: { ...settings, output: relative(process.cwd(), settings.output) },
  sections,
  warnings,
};
mkdirSync(dirname(settings.output), { recursive: true });
writeFileSync(settings.output, `${JSON.stringify(results, null, 2)}\n`);
const markdown = [
  `Generated ${results.generated_at} by \`npm run bench\` in ${results.duration_seconds} s on ${results.machine.cpus} × ${results.machine.cpu_model}, node ${results.machine.node}, load ${results.machine.load_average_before.join(' ')}.`,
  ...sections.map(markdownSection),
].join('\n\n');
writeFileSync(settings.output.replace(/\.json$/, '.md'), `${markdown}\n`);
console.log(`\nWrote ${settings.output} (and .md) in ${results.duration_seconds} s.`);
// Keep-alive sockets and SDK timers of the in-process service would hold the process open.
process.exit(0);
