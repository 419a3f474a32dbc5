import { createHmac, randomUUID } from 'node:crypto';
import type { LocalRuntime } from '../shared/local/runtime.js';
import type { Ceiling } from './ceiling.js';
import { Profiler, type ProfileSummary, ProfileTally } from './cpu-profile.js';
import {
  type CallCounts,
  type DynamoCallCounter,
  describeMix,
  difference,
  total,
} from './dynamo-counter.js';
import { BenchClient, dataOf, type HttpAnswer, type HttpCall } from './http-client.js';
import {
  measured,
  median,
  percentile,
  type Row,
  reasonOf,
  round,
  type Section,
  unavailable,
} from './report.js';

/**
 * The local runtime's sweeper polls the due-work index (gsi2) every 5 s whatever the requests do;
 * its calls would otherwise land on whichever request happened to be running.
 */
export const isSweeperPoll = (command: string, input: object): boolean =>
  command === 'Query' && 'IndexName' in input && input.IndexName === 'gsi2';

/** No operation's loop may hold the run longer than this, however slow it turns out. */
const operationTimeLimitMs = 60_000;

/** Requests of each operation profiled, after its measured ones. */
const profileSteps = 50;

/** What one operation's sequential requests cost, accumulated request by request. */
class Recorder {
  readonly latencies: number[] = [];
  readonly cpuMs: number[] = [];
  /** The CPU of the 404 sent just before each measured request: what is not the operation's. */
  readonly baselineCpuMs: number[] = [];
  inRequest: CallCounts = {};
  background: CallCounts = {};
  failure?: string;

  constructor(readonly name: string) {}

  add(into: 'inRequest' | 'background', counts: CallCounts): void {
    for (const [command, n] of Object.entries(counts))
      this[into][command] = (this[into][command] ?? 0) + n;
  }
}

interface TokenPair {
  access_token: string;
  refresh_token: string;
  user: { id: string };
}

/**
 * Drives the local runtime in this process, one request at a time, and attributes to each
 * request the DynamoDB calls made while it ran (and, separately, those still running after its
 * response — in-process queue consumers), and the process CPU it took.
 */
class OperationDriver {
  private readonly client = new BenchClient(1);
  readonly recorders = new Map<string, Recorder>();
  /**
   * warm-up: figures not kept (failures are); record: figures kept; profile: each request under
   * the V8 profiler (`repeat`), its figures not kept.
   */
  private mode: 'warm-up' | 'record' | 'profile' = 'record';
  private readonly profiler = new Profiler();

  constructor(
    private readonly runtime: LocalRuntime,
    private readonly counter: DynamoCallCounter,
  ) {}

  url(path: string): string {
    return `${this.runtime.baseUrl}${path}`;
  }

  recorder(name: string): Recorder {
    let recorder = this.recorders.get(name);
    if (recorder === undefined) {
      recorder = new Recorder(name);
      this.recorders.set(name, recorder);
    }
    return recorder;
  }

  /** An unmeasured request (setup). */
  send(call: HttpCall): Promise<HttpAnswer> {
    return this.client.send(call);
  }

  /**
   * A measured request; throws (after recording why) when the answer is not a success, or not
   * `refusedWith` when the request is meant to be refused (a wrong password).
   */
  async measure<T>(name: string, call: HttpCall, refusedWith?: number): Promise<T> {
    const recorder = this.recorder(name);
    try {
      await this.counter.settle();
      // The paired baseline: the same client and HTTP work, at the same moment's load.
      const baselineCpu = this.mode === 'record' ? await this.baselineRequest() : 0;
      const before = this.counter.snapshot();
      const cpuBefore = process.cpuUsage();
      const answer = await this.client.send(call);
      const cpu = process.cpuUsage(cpuBefore);
      const atResponse = this.counter.snapshot();
      await this.counter.settle();
      if (refusedWith !== undefined && answer.status !== refusedWith) {
        throw new Error(`${answer.status} where ${refusedWith} was expected`);
      }
      const data = refusedWith === undefined ? dataOf<T>(answer) : (undefined as T);
      if (this.mode !== 'record') return data;
      recorder.latencies.push(answer.ms);
      recorder.cpuMs.push((cpu.user + cpu.system) / 1000);
      recorder.baselineCpuMs.push(baselineCpu);
      recorder.add('inRequest', difference(atResponse, before));
      recorder.add('background', difference(this.counter.snapshot(), atResponse));
      return data;
    } catch (error) {
      recorder.failure ??= reasonOf(error);
      throw error;
    }
  }

  /**
   * One unrecorded warm-up step (index `iterations`, so unique inputs stay unique), then
   * `iterations` recorded ones: the figures are for warm invocations, the first request's lazy
   * initialisation (secrets, keys, the native binding) belongs to the cold start. Then a pass of
   * its own under the profiler (`profileSteps`, indexes after those). Stops at the first failure
   * (already on the recorder) or after the time limit (the row then shows a smaller n).
   */
  async repeat(
    iterations: number,
    step: (index: number) => Promise<void>,
    /** The path the profiled pass is summarised as; none: no profiled pass. */
    profileAs?: string,
  ): Promise<void> {
    const deadline = performance.now() + operationTimeLimitMs;
    try {
      this.mode = 'warm-up';
      await step(iterations);
      this.mode = 'record';
      for (let i = 0; i < iterations && performance.now() < deadline; i += 1) await step(i);
      if (profileAs === undefined) return;
      // One profile for the whole pass: starting the profiler costs more than a request.
      this.mode = 'profile';
      await this.profiler.start();
      try {
        for (let i = 1; i <= Math.min(iterations, profileSteps); i += 1) {
          await step(iterations + i);
        }
      } finally {
        this.profileOf(profileAs).add(await this.profiler.stop());
      }
    } catch {
      // Recorded by measure(); the other operations still run.
    } finally {
      this.mode = 'record';
    }
  }

  /** Profiles by path: an operation's own, or its step's when one step makes several. */
  readonly profiles = new Map<string, ProfileTally>();

  private profileOf(path: string): ProfileTally {
    let tally = this.profiles.get(path);
    if (tally === undefined) {
      tally = new ProfileTally();
      this.profiles.set(path, tally);
    }
    return tally;
  }

  /** The CPU of a request the runtime answers 404 without a handler: client + HTTP overhead. */
  private async baselineRequest(): Promise<number> {
    const cpuBefore = process.cpuUsage();
    await this.client.send({ method: 'GET', url: this.url('/bench/no-such-route') });
    const cpu = process.cpuUsage(cpuBefore);
    return (cpu.user + cpu.system) / 1000;
  }

  close(): void {
    this.client.close();
  }
}

const json = (value: unknown) => JSON.stringify(value);

/** The six-digit code of the newest outbox message to `to`, once queued codes are sent. */
async function codeFor(runtime: LocalRuntime, to: string): Promise<string> {
  await runtime.codesSent();
  const message = runtime.outbox.list(to)[0];
  const code = message?.text.match(/\b(\d{6})\b/)?.[1];
  if (code === undefined) throw new Error(`no code in the outbox for ${to}`);
  return code;
}

/** A signed-up, verified account with a live token pair: the subject of the account operations. */
async function createAccount(driver: OperationDriver, runtime: LocalRuntime) {
  const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'bench password 1234';
  dataOf(
    await driver.send({
      method: 'POST',
      url: driver.url('/auth/signup'),
      body: json({ name: 'Bench User', email, password }),
    }),
    'signup',
  );
  const tokens = dataOf<TokenPair>(
    await driver.send({
      method: 'POST',
      url: driver.url('/auth/verify-signup-otp'),
      body: json({ email, otp: await codeFor(runtime, email) }),
    }),
    'verifySignupOtp',
  );
  return { email, password, tokens };
}

/** Gateway B's signature header over `${t}.${body}`, with the first configured secret. */
function gatewayBSignature(body: string): string {
  const secret = (process.env.GATEWAY_B_WEBHOOK_SECRET ?? '').split(',')[0]!.trim();
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** The account the account operations used, for publication to it: its id and a live token. */
interface BenchAccount {
  userId: string;
  accessToken: string;
}

async function accountOperations(
  driver: OperationDriver,
  runtime: LocalRuntime,
  iterations: number,
): Promise<BenchAccount | undefined> {
  let account: Awaited<ReturnType<typeof createAccount>>;
  try {
    account = await createAccount(driver, runtime);
  } catch (error) {
    const reason = `setup (signup + verifySignupOtp): ${reasonOf(error)}`;
    for (const name of ['login', 'refreshToken', 'getProfile', 'profileUpdate'])
      driver.recorder(name).failure = reason;
    return undefined;
  }
  const { email, password } = account;
  let tokens = account.tokens;
  await driver.repeat(
    iterations,
    async () => {
      await driver.measure('login', {
        method: 'POST',
        url: driver.url('/auth/login'),
        body: json({ email, password }),
      });
    },
    'login',
  );
  await driver.repeat(
    iterations,
    async () => {
      tokens = await driver.measure<TokenPair>('refreshToken', {
        method: 'POST',
        url: driver.url('/auth/refresh-token'),
        body: json({ refresh_token: tokens.refresh_token }),
      });
    },
    'refreshToken',
  );
  await driver.repeat(
    iterations,
    async () => {
      await driver.measure('getProfile', {
        method: 'GET',
        url: driver.url('/profile'),
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
    },
    'getProfile',
  );
  await driver.repeat(
    iterations,
    async (i) => {
      await driver.measure('profileUpdate', {
        method: 'PUT',
        url: driver.url('/profile/update'),
        headers: { authorization: `Bearer ${tokens.access_token}` },
        body: json({ name: `Bench User ${i}`, online_status: i % 2 === 0 }),
      });
    },
    'profileUpdate',
  );
  return { userId: account.tokens.user.id, accessToken: tokens.access_token };
}

/** The two rows whose medians must not tell a known email from an unknown one. */
export const wrongPasswordRows = {
  known: 'login, wrong password (known email)',
  unknown: 'login, wrong password (unknown email)',
} as const;

/**
 * Wrong-password logins for known and unknown emails, interleaved one for one, so machine noise
 * lands on both alike. Each known email is a fresh account tried once: the throttle counts per
 * email and source, and a lock (after 5) would answer both without a hash.
 */
async function wrongPasswordLogins(
  driver: OperationDriver,
  runtime: LocalRuntime,
  samples: number,
): Promise<void> {
  let known: string[];
  try {
    known = [];
    for (let i = 0; i <= samples; i++) known.push((await createAccount(driver, runtime)).email);
  } catch (error) {
    for (const name of Object.values(wrongPasswordRows)) {
      driver.recorder(name).failure = `setup: ${reasonOf(error)}`;
    }
    return;
  }
  const attempt = (name: string, email: string) =>
    driver.measure(
      name,
      {
        method: 'POST',
        url: driver.url('/auth/login'),
        body: json({ email, password: 'not the password at all' }),
      },
      401,
    );
  await driver.repeat(
    samples,
    async (i) => {
      await attempt(wrongPasswordRows.known, known[i]!);
      await attempt(wrongPasswordRows.unknown, `nobody-${randomUUID().slice(0, 12)}@example.com`);
    },
    // The path of a login, profiled as such: its accounts are made one per sample.
  );
}

/** The ratio of the two medians, as the closing note of the security issue reports it. */
function wrongPasswordNote(recorders: Map<string, Recorder>): string | undefined {
  const known = recorders.get(wrongPasswordRows.known)?.latencies ?? [];
  const unknown = recorders.get(wrongPasswordRows.unknown)?.latencies ?? [];
  if (known.length === 0 || unknown.length === 0) return undefined;
  const ratio = median(unknown) / median(known);
  return `Wrong-password login, unknown vs known email: median ${round(median(unknown))} vs ${round(median(known))} ms (${round((ratio - 1) * 100, 1)} %, n = ${unknown.length} each, interleaved); the DynamoDB calls are the same by construction (test/security/login-throttle.test.ts).`;
}

/** Generic codes, which are a signed-in user's: sent and verified with the account's token. */
async function otpOperations(
  driver: OperationDriver,
  runtime: LocalRuntime,
  account: BenchAccount | undefined,
  iterations: number,
) {
  if (account === undefined) {
    driver.recorder('sendOtp').failure = 'needs the account of the account operations';
    driver.recorder('verifyOtp').failure = 'needs the account of the account operations';
    return;
  }
  const headers = { authorization: `Bearer ${account.accessToken}` };
  // A fresh number per pair: the per-target cooldown (60 s) and hourly cap must not throttle us.
  const offset = Math.floor(Math.random() * 10_000);
  await driver.repeat(
    iterations,
    async (i) => {
      const phone = `+1202555${String((offset + i) % 10_000).padStart(4, '0')}`;
      await driver.measure('sendOtp', {
        method: 'POST',
        url: driver.url('/otp/send'),
        headers,
        body: json({ phone_number: phone, purpose: 'generic' }),
      });
      await driver.measure('verifyOtp', {
        method: 'POST',
        url: driver.url('/otp/verify'),
        headers,
        body: json({
          phone_number: phone,
          code: await codeFor(runtime, phone),
          purpose: 'generic',
        }),
      });
    },
    'sendOtp + verifyOtp',
  );
  // A failed sendOtp leaves verifyOtp unmeasured: say so rather than show an empty row.
  const send = driver.recorder('sendOtp');
  const verify = driver.recorder('verifyOtp');
  if (verify.latencies.length === 0 && verify.failure === undefined && send.failure !== undefined) {
    verify.failure = `needs sendOtp: ${send.failure}`;
  }
}

async function gatewayBEvents(driver: OperationDriver, iterations: number) {
  const run = randomUUID().slice(0, 8);
  await driver.repeat(
    iterations,
    async (i) => {
      const body = json({
        id: `evt_bench_${run}_${i}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: `pi_bench_${run}_${i}`,
            object: 'payment_intent',
            amount: 1999,
            currency: 'usd',
          },
        },
      });
      await driver.measure('gateway B event', {
        method: 'POST',
        url: driver.url('/gateway-b-webhook'),
        headers: { 'gateway-b-signature': gatewayBSignature(body) },
        body,
      });
    },
    'gateway B event',
  );
}

/**
 * Publication to an account with one subscribed endpoint when registration works (the endpoint
 * refuses connections, so background attempts fail fast), else to an account with none.
 */
async function publishEvents(
  driver: OperationDriver,
  account: BenchAccount | undefined,
  iterations: number,
): Promise<void> {
  let label = 'publishEvent (no subscribed endpoint)';
  if (account !== undefined) {
    const registered = await driver.send({
      method: 'POST',
      url: driver.url('/webhooks'),
      headers: { authorization: `Bearer ${account.accessToken}` },
      body: json({ url: 'https://127.0.0.1:9/bench-hook', events: ['order.created'] }),
    });
    if (registered.status === 201) label = 'publishEvent (1 subscribed endpoint)';
  }
  const accountId = account?.userId ?? `acct_bench_${randomUUID().slice(0, 8)}`;
  await driver.repeat(
    iterations,
    async (i) => {
      await driver.measure(label, {
        method: 'POST',
        url: driver.url('/events'),
        body: json({
          type: 'order.created',
          account_id: accountId,
          data: { order_id: `ord_bench_${i}`, status: 'created', total: 19.99, currency: 'USD' },
        }),
      });
    },
    label,
  );
}

const columns = [
  { key: 'p50_ms', label: 'p50 ms' },
  { key: 'p99_ms', label: 'p99 ms' },
  { key: 'cpu_ms', label: 'CPU ms' },
  { key: 'baseline_cpu_ms', label: 'baseline CPU ms' },
  { key: 'per_vcpu_per_second', label: '/s per vCPU' },
  { key: 'ddb_calls', label: 'DDB calls' },
  { key: 'ddb_background', label: '+ after' },
  { key: 'ddb_floor_ms', label: 'DDB ms at raw rate' },
  { key: 'vs_http', label: '× bare http' },
  { key: 'n', label: 'n' },
  { key: 'ddb_mix', label: 'DynamoDB calls per request' },
];

function rowOf(recorder: Recorder, ceiling: Ceiling, httpP50?: number): Row {
  const n = recorder.latencies.length;
  if (n === 0) return unavailable(recorder.name, recorder.failure ?? 'not run');
  const baselineCpuMs = median(recorder.baselineCpuMs);
  const cpuMs = Math.max(0, median(recorder.cpuMs) - baselineCpuMs);
  const { dynamoGetP50Ms: get, dynamoPutP50Ms: put } = ceiling;
  // One raw DynamoDB Local round trip (p50, mean of Get and Put, 1 in flight): what a call costs at least.
  const rawCallMs = get === undefined || put === undefined ? undefined : (get + put) / 2;
  const p50 = percentile(recorder.latencies, 50);
  return measured(recorder.name, {
    p50_ms: round(p50),
    p99_ms: round(percentile(recorder.latencies, 99)),
    cpu_ms: round(cpuMs),
    baseline_cpu_ms: round(baselineCpuMs, 3),
    per_vcpu_per_second: cpuMs > 0 ? round(1000 / cpuMs) : null,
    ddb_calls: round(total(recorder.inRequest) / n),
    ddb_background: round(total(recorder.background) / n),
    ddb_floor_ms:
      rawCallMs === undefined ? null : round((total(recorder.inRequest) / n) * rawCallMs),
    vs_http: httpP50 === undefined ? null : round(p50 / httpP50, 1),
    n,
    ddb_mix: describeMix(recorder.inRequest, n) || 'none',
    // A partial run (a later iteration failed) is still a figure, but say so.
    ...(recorder.failure === undefined ? {} : { stopped_by: recorder.failure }),
  });
}

/**
 * Per-operation cost through the local runtime (in this process) on DynamoDB Local: latency,
 * handler CPU and DynamoDB calls, counted at the client; and each operation's CPU profile.
 */
export async function operationsSection(
  runtime: LocalRuntime,
  counter: DynamoCallCounter,
  iterations: number,
  ceiling: Ceiling,
  httpP50?: number,
): Promise<{ section: Section; profiles: Record<string, ProfileSummary> }> {
  const driver = new OperationDriver(runtime, counter);
  try {
    const account = await accountOperations(driver, runtime, iterations);
    await wrongPasswordLogins(driver, runtime, Math.min(iterations, 40));
    await otpOperations(driver, runtime, account, iterations);
    await gatewayBEvents(driver, iterations);
    await publishEvents(driver, account, iterations);
  } finally {
    driver.close();
  }
  const rows = [...driver.recorders.values()].map((recorder) => rowOf(recorder, ceiling, httpP50));
  const profiles = Object.fromEntries(
    [...driver.profiles]
      .filter(([, tally]) => !tally.empty)
      .map(([path, tally]) => [path, tally.summary()]),
  );
  const section: Section = {
    id: 'operations',
    title: `Per operation through the local runtime on DynamoDB Local (${iterations} sequential requests each)`,
    columns,
    rows,
    notes: [
      'CPU ms = median process CPU per request minus the median of a 404 sent through the same runtime just before each of them (baseline: client and HTTP overhead, under the same moment’s load); /s per vCPU = 1000 ÷ CPU ms.',
      'DDB calls = DynamoDB calls made while the request ran (counted by a middleware on the shared DynamoDB client, rate-limit counter included); "+ after" = calls still made after the response (in-process queue consumers).',
      'DDB ms at raw rate = DDB calls × the median raw DynamoDB Local Get/Put round trip (ceiling section, 1 in flight): the part of p50 only fewer calls can remove.',
      `Left out: ${counter.ignored} sweeper polls (Query on gsi2, every 5 s in the local runtime) made during the section.`,
      '× bare http = p50 ÷ the p50 of a bare node:http request in this process (ceiling section).',
      'Anchor (Keycloak sizing guide): 15 password logins/s and 120 refreshes/s per vCPU.',
      ...[wrongPasswordNote(driver.recorders)].filter((note) => note !== undefined),
    ],
  };
  return { section, profiles };
}
