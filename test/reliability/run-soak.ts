/**
 * `npm run soak`: the service as `npm start` runs it (its own DynamoDB Local, on disk), under a
 * steady mixed workload, then killed with SIGKILL mid-traffic and restarted on the same data.
 * Prints the figures docs/reliability.md shows; exits non-zero when a rule broke.
 *   SOAK_SECONDS      length of the measured steady phase (default 300; 30 is a smoke run)
 *   SOAK_RATE         requests per second offered by the users, all families (default 10)
 *   SOAK_USERS        concurrent account journeys (default 8); SOAK_PUBLISHERS, SOAK_PAYERS (2, 1)
 *   SOAK_RATE_LIMIT   the per-client limit the service runs with (default 120 a minute); a probe
 *                     client sends 150 % of it and must get exactly it accepted in each window
 *   SOAK_CRASH        0 skips the SIGKILL phase
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../shared/local/free-port.js';
import { makeTestCertificate, TestReceiver } from '../e2e/webhooks-receiver.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { checkConsistency, scanTable } from './consistency.js';
import {
  type Account,
  gatewayBSecret,
  type JourneyOptions,
  journey,
  newLedger,
  publishOrder,
  receivePayment,
  registerEndpoint,
  signUp,
  useAccount,
} from './journeys.js';
import { Caller, RateGate, Recorder } from './workload.js';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const steadySeconds = number('SOAK_SECONDS', 300);
const rate = number('SOAK_RATE', 10);
const users = number('SOAK_USERS', 8);
const publishers = number('SOAK_PUBLISHERS', 2);
const payers = number('SOAK_PAYERS', 1);
const limit = number('SOAK_RATE_LIMIT', 120);
const crashPhase = process.env.SOAK_CRASH !== '0';
const warmUpSeconds = Math.min(30, Math.max(10, steadySeconds / 5));
/** Long enough for every kept-alive connection to close (the servers' 5 s, DynamoDB Local's 30 s). */
const quietSeconds = 40;

const pause = (ms: number) => new Promise((resume) => setTimeout(resume, ms));
const say = (line: string) => console.log(`soak ${new Date().toISOString().slice(11, 19)} ${line}`);
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** The resident memory (bytes) of the process whose command line mentions `needle`, if any. */
function residentOf(needle: string): number | undefined {
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!command.includes(needle) || !command.startsWith('java')) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return rss === undefined ? undefined : Number(rss) * 1024;
    } catch {
      // The process ended while being read.
    }
  }
  return undefined;
}

interface ProcessReport {
  pid: number;
  rss_bytes: number;
  heap_used_bytes: number;
  active_resources: Record<string, number>;
}

const dataDirectory = mkdtempSync(join(tmpdir(), 'soak-data-'));
const certificate = makeTestCertificate();
const receiver = new TestReceiver();
await receiver.start(certificate);
const ports = { api: await freePort(), inbox: await freePort() };
const start = () =>
  startLocalService({
    PORT: String(ports.api),
    LOCAL_INBOX_PORT: String(ports.inbox),
    LOCAL_DATA_DIR: dataDirectory,
    RATE_LIMIT_PER_MINUTE: String(limit),
    WEBHOOK_ALLOW_PRIVATE_NETWORK: 'true',
    NODE_EXTRA_CA_CERTS: certificate.caFile,
    GATEWAY_B_WEBHOOK_SECRET: gatewayBSecret,
    LOG_LEVEL: 'warn',
  });

say(
  `${steadySeconds} s steady at ${rate} requests/s offered (${users} users, ${publishers} publishers, ${payers} payers), limit ${limit}/min, crash ${crashPhase ? 'on' : 'off'}; ${cpus().length} cores, load ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}`,
);
let service: LocalService = await start();
const origin = service.origin;
const recorder = new Recorder(false);
const gate = new RateGate(rate);
const ledger = newLedger();
let stopped = true;
const options: JourneyOptions = { patienceMs: 60_000, stopped: () => stopped };
const admin = new Caller(origin, recorder);
const local = async <T>(method: string, path: string): Promise<T> =>
  (await admin.send(method, path)).body.data as T;

// A webhook owner with two endpoints on the HTTPS receiver: every publication is two deliveries.
stopped = false;
const owner = await signUp(admin, ledger, options);
const endpoints = [
  await registerEndpoint(admin, owner, `${receiver.origin}/ok-soak-a`, options),
  await registerEndpoint(admin, owner, `${receiver.origin}/ok-soak-b`, options),
];

/** Each loop from its own loopback address: the limiter counts each as a client. */
function trafficLoops(): Promise<void>[] {
  stopped = false;
  const loops: Promise<void>[] = [];
  for (let index = 0; index < users; index++) {
    const caller = new Caller(origin, recorder, `127.0.1.${index + 1}`, gate);
    loops.push(
      (async () => {
        while (!stopped) {
          await journey(ledger, `user ${index}`, async () => {
            const account: Account = await signUp(caller, ledger, options);
            await useAccount(caller, ledger, account, { ...options, reset: index % 4 === 0 });
            // Most traffic is a signed-in app reading and refreshing.
            for (let read = 0; read < 6 && !stopped; read++) {
              await caller.call('read', 'GET', '/v1/profile', { token: account.accessToken });
              if (read % 3 === 2) {
                const refreshed = await caller.call('refresh', 'POST', '/v1/auth/refresh-token', {
                  body: { refresh_token: account.refreshToken },
                });
                if (refreshed.status === 200) {
                  account.accessToken = refreshed.body.data.access_token;
                  account.refreshToken = refreshed.body.data.refresh_token;
                } else if (refreshed.status === 401) {
                  // Revoked by the retry of a refresh whose answer the crash lost: a new journey.
                  ledger.sessionsRevokedByRetry += 1;
                  break;
                }
              }
            }
          });
        }
        caller.close();
      })(),
    );
  }
  for (let index = 0; index < publishers + payers; index++) {
    const caller = new Caller(origin, recorder, `127.0.2.${index + 1}`, gate);
    const publishing = index < publishers;
    loops.push(
      (async () => {
        while (!stopped) {
          await journey(ledger, `${publishing ? 'publisher' : 'payer'} ${index}`, () =>
            publishing
              ? publishOrder(caller, ledger, owner.userId, endpoints, options)
              : receivePayment(caller, ledger, owner.userId, options),
          );
        }
        caller.close();
      })(),
    );
  }
  return loops;
}

/**
 * The limiter probe: one client at 150 % of its limit, evenly spread, counting what each window
 * (named by X-RateLimit-Reset) accepted. Only windows it covered from start to end are judged.
 */
function limiterProbe(): {
  done: Promise<void>;
  windows: Map<number, { sent: number; accepted: number }>;
} {
  const windows = new Map<number, { sent: number; accepted: number }>();
  const caller = new Caller(origin, recorder, '127.0.3.1');
  const everyMs = 60_000 / (limit * 1.5);
  const done = (async () => {
    let next = performance.now();
    const inFlight: Promise<void>[] = [];
    while (!stopped) {
      next += everyMs;
      inFlight.push(
        caller.call('limiter', 'GET', '/v1/event-types').then((answer) => {
          const reset = Number(answer.headers['x-ratelimit-reset']);
          if (!Number.isFinite(reset)) return;
          const window = windows.get(reset) ?? { sent: 0, accepted: 0 };
          window.sent += 1;
          if (answer.status === 200) window.accepted += 1;
          windows.set(reset, window);
        }),
      );
      await pause(Math.max(0, next - performance.now()));
    }
    await Promise.all(inFlight);
    caller.close();
  })();
  return { done, windows };
}

async function stopTraffic(loops: Promise<void>[]): Promise<void> {
  stopped = true;
  await Promise.all(loops);
}

// Warm-up, then the quiet baseline of live handles.
say(`warm-up ${warmUpSeconds} s`);
let loops = trafficLoops();
await pause(warmUpSeconds * 1000);
await stopTraffic(loops);
await pause(quietSeconds * 1000);
const baseline = await local<ProcessReport>('GET', '/_local/process');
say(`baseline at rest: ${JSON.stringify(baseline.active_resources)}`);

// The measured steady phase.
say(`steady ${steadySeconds} s`);
const requestsBefore = recorder.requests;
const samples: { at: number; rss: number; heap: number; java?: number }[] = [];
loops = trafficLoops();
const probe = limiterProbe();
const steadyStarted = performance.now();
while (performance.now() - steadyStarted < steadySeconds * 1000) {
  const report = await local<ProcessReport>('GET', '/_local/process');
  samples.push({
    at: (performance.now() - steadyStarted) / 1000,
    rss: report.rss_bytes,
    heap: report.heap_used_bytes,
    java: residentOf(dataDirectory),
  });
  await pause(5_000);
}
await stopTraffic([...loops, probe.done]);
const steadyRequests = recorder.requests - requestsBefore;
const steadySummary = recorder.summary();
await pause(quietSeconds * 1000);
const atRest = await local<ProcessReport>('GET', '/_local/process');
say(`at rest after: ${JSON.stringify(atRest.active_resources)}`);

// SIGKILL mid-traffic, restart on the same data folder, traffic again.
let crashReport = 'not run';
if (crashPhase) {
  say('crash phase: traffic, SIGKILL, restart on the same data');
  loops = trafficLoops();
  await pause(15_000);
  recorder.allowNoAnswer(true);
  await service.crash();
  say('killed; restarting');
  // DynamoDB Local follows its parent down: wait until its data folder is free again.
  while (residentOf(dataDirectory) !== undefined) await pause(200);
  const restartedAt = performance.now();
  service = await start();
  crashReport = `restarted in ${((performance.now() - restartedAt) / 1000).toFixed(1)} s`;
  await pause(5_000);
  recorder.allowNoAnswer(false);
  await pause(25_000);
  await stopTraffic(loops);
}

// Drain: sweepers pick up what the crash left (their grace passed on the service clock).
say('draining');
const dynamoEndpoint = () =>
  /DynamoDB Local at (http:\/\/\S+?)\)/.exec(service.output())?.[1] ?? '';
const receivedAt = (url: string) =>
  url.startsWith(receiver.origin) ? receiver.received : undefined;
let report = checkConsistency(
  await scanTable(dynamoEndpoint(), 'service-local'),
  ledger,
  receivedAt,
  {
    expectFinished: false,
  },
);
for (let round = 0; round < 40; round++) {
  if (report.counts.unfinished + report.counts.inboundUnfinished === 0) break;
  await admin.send('POST', '/_local/clock?advance_seconds=130');
  await pause(6_000);
  report = checkConsistency(
    await scanTable(dynamoEndpoint(), 'service-local'),
    ledger,
    receivedAt,
    {
      expectFinished: false,
    },
  );
}
report = checkConsistency(await scanTable(dynamoEndpoint(), 'service-local'), ledger, receivedAt);
await service.stop();
await receiver.stop();
certificate.remove();
rmSync(dataDirectory, { recursive: true, force: true });

// Figures.
// The steady phase follows the warm-up: all of it counts as warm.
const warm = samples;
const firstMinute = warm.filter((sample) => sample.at < (warm[0]?.at ?? 0) + 60);
const lastMinute = warm.filter((sample) => sample.at > (warm.at(-1)?.at ?? 0) - 60);
const mean = (values: number[]) =>
  values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const slope = (key: 'rss' | 'heap') => {
  const xs = warm.map((sample) => sample.at / 60);
  const ys = warm.map((sample) => sample[key]);
  const mx = mean(xs);
  const my = mean(ys);
  const num = xs.reduce((sum, x, index) => sum + (x - mx) * (ys[index]! - my), 0);
  const den = xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
};
const leaks = Object.entries(atRest.active_resources)
  .map(([kind, count]) => [kind, count - (baseline.active_resources[kind] ?? 0)] as const)
  .filter(([, grown]) => grown > 0);
const judged = [...probe.windows.entries()].sort(([a], [b]) => a - b).slice(1, -1);
const inexact = judged.filter(([, window]) => window.accepted !== limit);
const fiveHundreds = recorder.fiveHundreds;

const problems = [
  ...recorder.problems,
  ...ledger.unfinished.slice(0, 20),
  ...report.problems.slice(0, 20),
  ...inexact.map(
    ([reset, window]) =>
      `window ending ${reset}: ${window.accepted} of ${window.sent} accepted, not ${limit}`,
  ),
  ...(fiveHundreds > 0 ? [`${fiveHundreds} answers were 5xx`] : []),
  ...leaks.map(([kind, grown]) => `${grown} more ${kind} at rest than before`),
];

const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
console.log(
  `\nsoak: ${steadyRequests} requests in the ${steadySeconds} s steady phase (${(steadyRequests / steadySeconds).toFixed(1)}/s), load ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}\n`,
);
console.log(row(['family', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'answers by status']));
console.log(row(['---', '---:', '---:', '---:', '---:', '---']));
for (const [family, figures] of Object.entries(steadySummary)) {
  if (figures === undefined) continue;
  const statuses = Object.entries(figures.statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  console.log(
    row([family, figures.requests, figures.p50Ms, figures.p99Ms, figures.maxMs, statuses]),
  );
}
console.log(`
memory (service process) after warm-up: RSS ${mib(mean(firstMinute.map((s) => s.rss)))} MiB in the first minute, ${mib(mean(lastMinute.map((s) => s.rss)))} MiB in the last (${mib(slope('rss'))} MiB/min); heap ${mib(mean(firstMinute.map((s) => s.heap)))} → ${mib(mean(lastMinute.map((s) => s.heap)))} MiB (${mib(slope('heap'))} MiB/min); DynamoDB Local (Java) ${mib(mean(firstMinute.map((s) => s.java ?? 0)))} → ${mib(mean(lastMinute.map((s) => s.java ?? 0)))} MiB
live handles at rest: before ${JSON.stringify(baseline.active_resources)}, after ${JSON.stringify(atRest.active_resources)}
rate limiter: ${judged.length} whole windows at 150 % of ${limit}/min, accepted per window ${judged.map(([, window]) => window.accepted).join(', ')}
crash: ${crashReport}; after drain ${JSON.stringify(report.counts)}; codes asked again after a lost answer ${ledger.codesLost}; sessions revoked by a refresh retried after a lost answer ${ledger.sessionsRevokedByRetry}; journeys cut short ${ledger.unfinished.length}
all phases: ${recorder.requests} requests, ${fiveHundreds} 5xx, ${recorder.unanswered} unanswered (while killed)
`);
if (problems.length > 0) {
  console.log(`soak: ${problems.length} rule(s) broken:`);
  for (const problem of problems.slice(0, 40)) console.log(`  - ${problem}`);
}
process.exitCode = problems.length > 0 ? 1 : 0;
