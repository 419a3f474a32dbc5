/**
 * Outbound delivery throughput, measured through the local runtime (`npm start`'s entry, as a
 * child process) to an HTTPS receiver in this process:
 * - deliveries per second: events published to an account whose endpoints all subscribe;
 * - CPU per delivery: the service process's user+system CPU over the phase (/proc), divided by
 *   deliveries — the worker, the local queue and the publish handler; DynamoDB Local (a separate
 *   Java process) is not counted;
 * - fan-out: one event to `fanOut` endpoints, from the publish call to the last request received.
 *
 * Standalone: `npx tsx bench/delivery.ts [deliveries] [fanOut]` (DELIVERY_CPU_PROF_DIR=dir also
 * writes a CPU profile of the service process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeTestCertificate, TestReceiver } from '../test/e2e/webhooks-receiver.js';

export interface DeliveryOptions {
  deliveries: number;
  fanOut: number;
}

const root = resolve(import.meta.dirname, '..');
const endpointsForThroughput = 10;

interface Service {
  child: ChildProcess;
  baseUrl: string;
  origin: string;
}

async function startService(caFile: string, endpointsPerAccount: number): Promise<Service> {
  // DELIVERY_CPU_PROF_DIR: write a V8 CPU profile of the service process there (on exit).
  const profile = process.env.DELIVERY_CPU_PROF_DIR;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', 'bin/local.ts'], {
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
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  return { child, baseUrl, origin: new URL(baseUrl).origin };
}

/** User + system CPU milliseconds of a process so far (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

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

export async function measureDelivery(options: DeliveryOptions) {
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
    const events = Math.ceil(options.deliveries / endpointsForThroughput);
    const deliveries = events * endpointsForThroughput;
    const before = receiver.received.length;
    const connectionsBefore = receiver.connections;
    const cpuBefore = cpuMs(pid);
    const startedAt = performance.now();
    for (let sent = 0; sent < events; sent += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, events - sent) }, (_, index) =>
          post(service as Service, '/events', {
            type: 'order.created',
            account_id: userId,
            data: { order_id: `ord_${sent + index}`, status: 'placed', total: 10, currency: 'USD' },
          }),
        ),
      );
    }
    await until(() => receiver.received.length - before >= deliveries, 150);
    const seconds = (performance.now() - startedAt) / 1000;
    const throughputCpu = cpuMs(pid) - cpuBefore;
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
    const fanCpuBefore = cpuMs(pid);
    const fanStarted = performance.now();
    await post(service, '/events', {
      type: 'order.completed',
      account_id: userId,
      data: { order_id: 'ord_fan', status: 'delivered', total: 10, currency: 'USD' },
    });
    const publishMs = performance.now() - fanStarted;
    await until(() => receiver.received.length - fanBefore >= options.fanOut, 120);
    const fanMs = performance.now() - fanStarted;

    return [
      {
        name: `throughput (${deliveries} deliveries, ${endpointsForThroughput} endpoints)`,
        deliveries_per_second: Math.round(deliveries / seconds),
        cpu_ms_per_delivery: Number((throughputCpu / deliveries).toFixed(2)),
        wall_seconds: Number(seconds.toFixed(2)),
        attempt_http_ms_p50: latencies[Math.floor(latencies.length / 2)] ?? null,
        connections: receiver.connections - connectionsBefore,
      },
      {
        name: `fan-out (1 event to ${options.fanOut} endpoints)`,
        publish_ms: Math.round(publishMs),
        all_received_ms: Math.round(fanMs),
        cpu_ms_per_delivery: Number(((cpuMs(pid) - fanCpuBefore) / options.fanOut).toFixed(2)),
      },
    ];
  } catch (error) {
    return { name: 'delivery', error: error instanceof Error ? error.message : String(error) };
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
  const [deliveries = '200', fanOut = '100'] = process.argv.slice(2);
  console.log(
    JSON.stringify(
      await measureDelivery({ deliveries: Number(deliveries), fanOut: Number(fanOut) }),
      null,
      2,
    ),
  );
}
