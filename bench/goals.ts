import { cpus } from 'node:os';
import type { Ceiling } from './ceiling.js';
import { describeShares, type ProfileSummary } from './cpu-profile.js';
import { type Figure, measured, type Row, round, type Section, unavailable } from './report.js';

/**
 * The performance goals (docs/performance.md, "Goals, first"), read off the other sections of the
 * same run: each as the measured figure, its anchor and the ratio to it, the goal, and whether it is met.
 */

/** Keycloak's sizing guide, per vCPU. */
export const keycloakPerVcpu = { logins: 15, refreshes: 120 };

const coldStartBudget = 1.25;

const figureOf = (
  sections: Section[],
  sectionId: string,
  rowName: (name: string) => boolean,
  key: string,
) => {
  const row = sections
    .find((section) => section.id === sectionId)
    ?.rows.find((candidate) => candidate.available && rowName(candidate.name));
  const value = row?.figures[key];
  return typeof value === 'number' ? value : undefined;
};

function goal(
  name: string,
  value: number | undefined,
  target: { atLeast?: number; atMost?: number },
  anchor?: { value: number; label: string },
  missing = 'not measured in this run',
): Row {
  if (value === undefined) return unavailable(name, missing);
  const met =
    (target.atLeast === undefined || value >= target.atLeast) &&
    (target.atMost === undefined || value <= target.atMost);
  const figures: Record<string, Figure> = {
    measured: round(value),
    anchor: anchor === undefined ? null : `${anchor.value} (${anchor.label})`,
    vs_anchor: anchor === undefined ? null : round(value / anchor.value),
    goal: target.atLeast !== undefined ? `≥ ${target.atLeast}` : `≤ ${target.atMost}`,
    met: met ? 'yes' : 'NO',
  };
  return measured(name, figures);
}

export function goalsSection(sections: Section[], ceiling: Ceiling): Section {
  const operation = (name: string, key: string) =>
    figureOf(sections, 'operations', (row) => row === name, key);
  const delivery = (key: string) =>
    figureOf(sections, 'delivery', (row) => row.startsWith('throughput'), key);
  const deliveries = delivery('deliveries_per_second');
  // The rate at which DynamoDB Local took the writes of deliveries, and nothing else, in this
  // run; without that row, its PutItem ceiling divided by the items each delivery writes.
  const writesPerDelivery = delivery('ddb_item_writes_per_delivery');
  const dynamoAllows =
    ceiling.dynamoDeliveryWritesPerSecond ??
    (ceiling.dynamoPutPerSecond !== undefined && writesPerDelivery !== undefined
      ? ceiling.dynamoPutPerSecond / writesPerDelivery
      : undefined);
  // Both processes share this machine's cores: at any rate, the service's CPU per delivery and
  // DynamoDB Local's for the same delivery's writes must fit in them together.
  const serviceCpuMs = delivery('cpu_ms_per_delivery');
  const coresAllow =
    serviceCpuMs !== undefined && ceiling.dynamoCpuMsPerDelivery !== undefined
      ? (cpus().length * 1000) / (serviceCpuMs + ceiling.dynamoCpuMsPerDelivery)
      : undefined;
  const coldStarts = sections
    .find((section) => section.id === 'cold-start')
    ?.rows.filter((row) => row.available && !row.name.startsWith('floor'))
    .map((row) => row.figures.vs_floor)
    .filter((ratio): ratio is number => typeof ratio === 'number');
  const rows = [
    goal(
      'password logins/s per vCPU',
      operation('login', 'per_vcpu_per_second'),
      { atLeast: 3 * keycloakPerVcpu.logins },
      { value: keycloakPerVcpu.logins, label: 'Keycloak' },
    ),
    goal(
      'refreshes/s per vCPU',
      operation('refreshToken', 'per_vcpu_per_second'),
      { atLeast: 4 * keycloakPerVcpu.refreshes },
      { value: keycloakPerVcpu.refreshes, label: 'Keycloak' },
    ),
    goal('DynamoDB calls per refresh', operation('refreshToken', 'ddb_calls'), { atMost: 2 }),
    goal(
      'deliveries/s',
      deliveries,
      { atLeast: 200 },
      dynamoAllows === undefined
        ? undefined
        : { value: round(dynamoAllows), label: 'DynamoDB Local allows' },
    ),
    goal('CPU ms per delivery', delivery('cpu_ms_per_delivery'), { atMost: 4 }),
    goal(
      'cold start, slowest handler × floor',
      coldStarts === undefined || coldStarts.length === 0 ? undefined : Math.max(...coldStarts),
      { atMost: coldStartBudget },
    ),
  ];
  return {
    id: 'goals',
    title: 'Goals',
    columns: [
      { key: 'measured', label: 'measured' },
      { key: 'anchor', label: 'anchor' },
      { key: 'vs_anchor', label: '× anchor' },
      { key: 'goal', label: 'goal' },
      { key: 'met', label: 'met' },
    ],
    rows,
    notes: [
      'Per vCPU = 1000 ÷ the handler CPU ms of the per-operation section; Keycloak sizing guide: 15 password logins/s and 120 refreshes/s per vCPU (goals: 3× and 4×).',
      'DynamoDB Local allows = the deliveries a second whose own writes (batched create, claim, record) it took with nothing else running (ceiling section): no delivery path that makes those writes can go faster on this machine. Without that row: its PutItem ceiling ÷ the items each delivery writes.',
      'Cold start: the slowest handler’s import time ÷ the DynamoDB-DocumentClient-only floor’s, both bundled alike.',
      ...(coresAllow === undefined || serviceCpuMs === undefined
        ? []
        : [
            `The cores allow at most ${round(coresAllow)} deliveries/s here: each delivery costs the service ${round(serviceCpuMs)} ms of CPU (delivery section) and DynamoDB Local ${round(ceiling.dynamoCpuMsPerDelivery ?? 0)} ms for its writes alone (ceiling section), and both run on these ${cpus().length} cores — before the HTTPS receiver takes its share.`,
          ]),
    ],
  };
}

/** Where each path's CPU goes, from the profiled passes. */
export function profilesSection(profiles: Record<string, ProfileSummary>): Section {
  return {
    id: 'profiles',
    title: 'CPU profile per path (self time, share of busy samples)',
    columns: [
      { key: 'busy_ms', label: 'busy ms sampled' },
      { key: 'parts', label: 'by part of the stack' },
      { key: 'frames', label: 'heaviest frames' },
    ],
    rows: Object.entries(profiles).map(([path, summary]) =>
      measured(path, {
        busy_ms: summary.busyMs,
        parts: describeShares(summary.parts.slice(0, 6)),
        frames: describeShares(summary.frames.slice(0, 4)),
      }),
    ),
    notes: [
      'V8 sampling profiles (100 µs) of passes of their own, after the measured ones: 50 requests per operation through the in-process runtime (the bench’s HTTP client included), and the service process over a second delivery phase.',
      'Parts: our code by layer (service: adapters, domain, http), each dependency (AWS SDK: its clients, DocumentClient and Smithy core), node’s HTTP/TLS/stream code, socket syscalls (writev: mostly the kernel’s loopback work), GC.',
    ],
  };
}
