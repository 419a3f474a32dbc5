/**
 * Outbound delivery throughput, measured through the local runtime (`npm start`'s entry, as a
 * child process) to an HTTPS receiver in this process, after a warm-up (the JIT of Node and of
 * DynamoDB Local: the first few hundred deliveries cost up to three times the steady ones):
 * - deliveries per second: events published to an account whose endpoints all subscribe;
 * - CPU per delivery: the service process's user+system CPU over the phase (/proc), divided by
 *   deliveries — the worker, the local queue and the publish handler; DynamoDB Local (a separate
 *   Java process) is not counted;
 * - DynamoDB calls and item writes per delivery, counted in the service process over the same
 *   phase (bench/delivery-probe.ts), publication and fan-out included;
 * - where the CPU goes: a profile of the service process over a phase of its own;
 * - fan-out: one event to `fanOut` endpoints, from the publish call to the last request received.
 *
 * Standalone: `npx tsx bench/delivery.ts [deliveries] [fanOut] [warmUp]`
 * (DELIVERY_CPU_PROF_DIR=dir also writes a CPU profile of the whole service process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeTestCertificate, TestReceiver } from '../test/e2e/webhooks-receiver.js';
import type { ProfileSummary } from './cpu-profile.js';
import type { ProbeRequest } from './delivery-probe.js';
import { coreShareOf, dynamoLocalPid, processCpuMs } from './process-cpu.js';
import type { Figure } from './report.js';

export interface DeliveryOptions {
  deliveries: number;
  fanOut: number;
  /** Deliveries made, unmeasured, before the measured ones. */
  warmUp: number;
}

export interface DeliveryMeasurement {
  rows: ({ name: string } & Record<string, Figure>)[];
  /** The service process's CPU over a phase of deliveries of its own. */
  profile?: ProfileSummary;
  error?: string;
}

const root = resolve(import.meta.dirname, '..');
const endpointsForThroughput = 10;

interface Service {
  child: ChildProcess;
  baseUrl: string;
  origin: string;
  /** The DynamoDB Local the service started for itself. */
  dynamoEndpoint: string | undefined;
}

async function startService(caFile: string, endpointsPerAccount: number): Promise<Service> {
  // DELIVERY_CPU_PROF_DIR: write a V8 CPU profile of the service process there (on exit).
  const profile = process.env.DELIVERY_CPU_PROF_DIR;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const probe = pathToFileURL(resolve(root, 'bench', 'delivery-probe.ts')).href;
  const child = spawn(
    process.execPath,
    [...flags, '--import', 'tsx', '--import', probe, 'bin/local.ts'],
    {
      cwd: root,
      env: {
        ...process.env,
        PORT: '0',
        LOCAL_DATA_DIR: 'memory',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '1000000',
        WEBHOOK_ALLOW_PRIVATE_NETWORK: 'true',
        // One bench account registers every endpoint: the throughput ones plus the fan-out.
        WEBHOOK_ENDPOINTS_PER_ACCOUNT: String(endpointsPerAccount),
        NODE_EXTRA_CA_CERTS: caFile,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const baseUrl = await new Promise<string>((ready, failed) => {
    const timer = setTimeout(() => failed(new Error(`service did not start: ${output}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+\/v1)/.exec(output);
      if (found?.[1]) {
        clearTimeout(timer);
        ready(found[1]);
      }
    });
    child.once('exit', (code) => failed(new Error(`service exited with ${code}: ${output}`)));
  });
  // The listening line names the DynamoDB Local the service started: its CPU is read too.
  const dynamoEndpoint = /\(DynamoDB Local at (http:\/\/[^)\s]+)\)/.exec(output)?.[1];
  return { child, baseUrl, origin: new URL(baseUrl).origin, dynamoEndpoint };
}

/** Asks the probe in the service process (bench/delivery-probe.ts) and waits for its reply. */
function ask<T>(service: Service, request: ProbeRequest): Promise<T> {
  return new Promise((answered, failed) => {
    const onMessage = (message: { ask: string; reply?: T; error?: string }) => {
      if (message.ask !== request.ask) return;
      service.child.off('message', onMessage);
      if (message.error !== undefined) failed(new Error(message.error));
      else answered(message.reply as T);
    };
    service.child.on('message', onMessage);
    service.child.send(request);
  });
}

/** User + system CPU milliseconds of a process so far (Linux /proc; clock ticks of 10 ms). */
async function post(service: Service, path: string, body: unknown, token?: string) {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the bench reads a few known fields.
  const json = (await response.json()) as any;
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json.data;
}

async function signUp(service: Service): Promise<{ token: string; userId: string }> {
  const email = `bench-${randomUUID()}@example.com`;
  await post(service, '/auth/signup', {
    name: 'Bench',
    email,
    password: 'correct horse battery staple',
  });
  const outbox = await fetch(`${service.origin}/_local/outbox?to=${encodeURIComponent(email)}`);
  const text = ((await outbox.json()) as { data: { text: string }[] }).data[0]?.text ?? '';
  const otp = /\b(\d{6})\b/.exec(text)?.[1];
  const verified = await post(service, '/auth/verify-signup-otp', { email, otp });
  return { token: verified.access_token, userId: verified.user.id };
}

async function until(condition: () => boolean, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not done within ${seconds} s`);
    await new Promise((resume) => setTimeout(resume, 5));
  }
}

/** Publishes `events` order.created events, 8 at a time, and waits until all their deliveries arrived. */
async function deliver(
  service: Service,
  receiver: TestReceiver,
  userId: string,
  events: number,
  deliveries: number,
): Promise<void> {
  const before = receiver.received.length;
  for (let sent = 0; sent < events; sent += 8) {
    await Promise.all(
      Array.from({ length: Math.min(8, events - sent) }, (_, index) =>
        post(service, '/events', {
          type: 'order.created',
          account_id: userId,
          data: { order_id: `ord_${sent + index}`, status: 'placed', total: 10, currency: 'USD' },
        }),
      ),
    );
  }
  await until(() => receiver.received.length - before >= deliveries, 150);
}

export async function measureDelivery(options: DeliveryOptions): Promise<DeliveryMeasurement> {
  const certificate = makeTestCertificate();
  const receiver = new TestReceiver();
  await receiver.start(certificate);
  let service: Service | undefined;
  try {
    service = await startService(certificate.caFile, endpointsForThroughput + options.fanOut);
    const pid = service.child.pid ?? 0;
    const { token, userId } = await signUp(service);

    // Throughput: endpoints that all take order.created; events published 8 at a time.
    const throughputEndpoints: string[] = [];
    for (let index = 0; index < endpointsForThroughput; index++) {
      const endpoint = await post(
        service,
        '/webhooks',
        { url: `${receiver.origin}/ok-throughput-${index}`, events: ['order.created'] },
        token,
      );
      throughputEndpoints.push(endpoint.id);
    }
    const eventsFor = (count: number) => Math.ceil(count / endpointsForThroughput);
    await deliver(
      service,
      receiver,
      userId,
      eventsFor(options.warmUp),
      eventsFor(options.warmUp) * endpointsForThroughput,
    );

    const events = eventsFor(options.deliveries);
    const deliveries = events * endpointsForThroughput;
    const connectionsBefore = receiver.connections;
    await ask(service, { ask: 'count' });
    const cpuBefore = processCpuMs(pid);
    const startedAt = performance.now();
    const running = service;
    const { corePercent: dynamoCorePercent } = await coreShareOf(
      running.dynamoEndpoint === undefined ? undefined : dynamoLocalPid(running.dynamoEndpoint),
      () => deliver(running, receiver, userId, events, deliveries),
    );
    const seconds = (performance.now() - startedAt) / 1000;
    const throughputCpu = processCpuMs(pid) - cpuBefore;
    const counted = await ask<{ calls?: number; itemWrites?: number }>(service, { ask: 'counted' });
    const connections = receiver.connections - connectionsBefore;

    // Where the CPU goes, over deliveries of their own (the profiler costs CPU too).
    await ask(service, { ask: 'profile' });
    await deliver(service, receiver, userId, events, deliveries);
    const profile = await ask<ProfileSummary>(service, { ask: 'profiled' });

    // The HTTP part of each attempt, as recorded (latency_ms): what the rest of the time is not.
    const listed = await fetch(
      `${service.baseUrl}/webhooks/${throughputEndpoints[0]}/deliveries?per_page=100`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const latencies = (
      (await listed.json()) as { data: { attempts: { latency_ms: number }[] }[] }
    ).data
      .flatMap((delivery) => delivery.attempts.map((attempt) => attempt.latency_ms))
      .sort((a, b) => a - b);

    // Fan-out: one event to `fanOut` endpoints.
    for (let index = 0; index < options.fanOut; index++) {
      await post(
        service,
        '/webhooks',
        { url: `${receiver.origin}/ok-fan-${index}`, events: ['order.completed'] },
        token,
      );
    }
    const fanBefore = receiver.received.length;
    const fanCpuBefore = processCpuMs(pid);
    const fanStarted = performance.now();
    await post(service, '/events', {
      type: 'order.completed',
      account_id: userId,
      data: { order_id: 'ord_fan', status: 'delivered', total: 10, currency: 'USD' },
    });
    const publishMs = performance.now() - fanStarted;
    await until(() => receiver.received.length - fanBefore >= options.fanOut, 120);
    const fanMs = performance.now() - fanStarted;

    const perDelivery = (count: number | undefined) =>
      count === undefined ? null : Number((count / deliveries).toFixed(2));
    return {
      rows: [
        {
          name: `throughput (${deliveries} deliveries to ${endpointsForThroughput} endpoints, after ${options.warmUp})`,
          deliveries_per_second: Math.round(deliveries / seconds),
          cpu_ms_per_delivery: Number((throughputCpu / deliveries).toFixed(2)),
          ddb_calls_per_delivery: perDelivery(counted.calls),
          ddb_item_writes_per_delivery: perDelivery(counted.itemWrites),
          wall_seconds: Number(seconds.toFixed(2)),
          attempt_http_ms_p50: latencies[Math.floor(latencies.length / 2)] ?? null,
          dynamo_core_percent: dynamoCorePercent ?? null,
          new_connections: connections,
        },
        {
          name: `fan-out (1 event to ${options.fanOut} endpoints)`,
          publish_ms: Math.round(publishMs),
          all_received_ms: Math.round(fanMs),
          cpu_ms_per_delivery: Number(
            ((processCpuMs(pid) - fanCpuBefore) / options.fanOut).toFixed(2),
          ),
        },
      ],
      profile,
    };
  } catch (error) {
    return { rows: [], error: error instanceof Error ? error.message : String(error) };
  } finally {
    if (service && service.child.exitCode === null) {
      const exited = new Promise((done) => service?.child.once('exit', done));
      service.child.kill('SIGTERM');
      await exited;
    }
    await receiver.stop();
    certificate.remove();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [deliveries = '200', fanOut = '100', warmUp = '500'] = process.argv.slice(2);
  console.log(
    JSON.stringify(
      await measureDelivery({
        deliveries: Number(deliveries),
        fanOut: Number(fanOut),
        warmUp: Number(warmUp),
      }),
      null,
      2,
    ),
  );
}
