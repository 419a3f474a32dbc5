/**
 * `npm run chaos`: every chaos scenario at full scale against a fresh service, its figures printed
 * as the table docs/reliability.md shows. Exits non-zero when any scenario broke a rule.
 *   CHAOS_SEED       seeds the DynamoDB fault proxy (default: a fresh seed, printed first)
 *   CHAOS_JOURNEYS   account journeys per scenario (default 12)
 *   CHAOS_PUBLICATIONS, CHAOS_PAYMENTS  events published / payments received (default 20 / 12)
 *   CHAOS_FAULT_SECONDS  how long each dependency stays down under traffic (default 10)
 *   CHAOS_ONLY       run only the scenarios whose name contains this text
 *   CHAOS_LOG_LEVEL  the service's LOG_LEVEL (default silent: failures are the point here)
 */
import { randomInt } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { ChaosRig, chaosLadder } from './chaos/rig.js';
import {
  faultNames,
  runFaultScenario,
  runHostileReceivers,
  runSchedulerFailure,
  type ScenarioFigures,
} from './chaos/scenarios.js';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const seed = number('CHAOS_SEED', randomInt(2 ** 31));
const scale = {
  journeys: number('CHAOS_JOURNEYS', 12),
  publications: number('CHAOS_PUBLICATIONS', 20),
  payments: number('CHAOS_PAYMENTS', 12),
  faultMs: number('CHAOS_FAULT_SECONDS', 10) * 1000,
};
const only = process.env.CHAOS_ONLY;
process.env.CHAOS_PROGRESS ??= '1';

console.log(
  `chaos: seed ${seed}, ${JSON.stringify(scale)}, ${cpus().length} cores, load ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}`,
);
const started = performance.now();
const rig = await ChaosRig.start(seed);
const results: ScenarioFigures[] = [];
try {
  const scenarios: [string, () => Promise<ScenarioFigures>][] = [
    ...faultNames.map(
      (name) =>
        [name, () => runFaultScenario(rig, name, scale)] as [
          string,
          () => Promise<ScenarioFigures>,
        ],
    ),
    ['Scheduler failing', () => runSchedulerFailure(rig)],
    ['Hostile webhook receivers', () => runHostileReceivers(rig, chaosLadder.split(',').length)],
  ];
  for (const [name, run] of scenarios) {
    if (only !== undefined && !name.includes(only)) continue;
    console.log(`chaos: ${name}…`);
    const figures = await run();
    results.push(figures);
    console.log(
      `chaos: ${name}: ${figures.problems.length === 0 ? 'every rule held' : 'RULES BROKEN'} (${figures.seconds} s)`,
    );
    for (const problem of figures.problems.slice(0, 20)) console.log(`  - ${problem}`);
  }
} finally {
  await rig.close();
}

const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
console.log(
  `\nchaos: ${results.length} scenarios in ${Math.round((performance.now() - started) / 1000)} s, load ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}\n`,
);
console.log(
  row([
    'scenario',
    'requests',
    'faults injected',
    '5xx (all the envelope)',
    'bad answers',
    'lost or doubled',
    'signups contested',
    'codes spent by a lost answer',
    'deliveries (delivered / failed)',
    'received again (same webhook-id)',
    'inbound processed',
    's',
  ]),
);
console.log(row(Array.from({ length: 12 }, (_, index) => (index === 0 ? '---' : '---:'))));
for (const figures of results) {
  const { consistency: counts } = figures;
  console.log(
    row([
      figures.name,
      figures.requests,
      figures.faultsInjected,
      figures.fiveHundreds,
      figures.badAnswers,
      figures.lostOrDoubled,
      figures.contested,
      figures.codesLost,
      `${counts.deliveries} (${counts.delivered} / ${counts.failed})`,
      counts.receivedTwice,
      `${counts.inbound - counts.inboundUnfinished} / ${counts.inbound}`,
      figures.seconds,
    ]),
  );
}
console.log('\nchaos: latency by operation family over every scenario (ms)\n');
console.log(row(['family', 'requests', 'p50', 'p99', 'max', 'answers by status']));
console.log(row(['---', '---:', '---:', '---:', '---:', '---']));
for (const [family, figures] of Object.entries(rig.recorder.summary())) {
  if (figures === undefined) continue;
  console.log(
    row([
      family,
      figures.requests,
      figures.p50Ms,
      figures.p99Ms,
      figures.maxMs,
      Object.entries(figures.statuses)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', '),
    ]),
  );
}
process.exitCode = results.some((figures) => figures.problems.length > 0) ? 1 : 0;
