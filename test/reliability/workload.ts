import { Agent, request } from 'node:http';
import { errorCodes } from '../../shared/domain/errors.js';
import { injectedFaultMarker } from '../../shared/local/faults.js';

/**
 * What the chaos and soak suites share: a client that sends requests to the service and records
 * every answer by operation family — status, latency, and any answer that breaks the rules a
 * failing dependency must not break (the error envelope, nothing internal in it, no hang).
 */

/** The operation families whose figures the suites report. */
export type Family =
  | 'signup'
  | 'activate'
  | 'login'
  | 'refresh'
  | 'read'
  | 'otp'
  | 'inbound'
  | 'publish'
  | 'webhooks'
  | 'recover'
  | 'limiter';

/**
 * The longest an answer may take: the functions' 10 s timeout (past which API Gateway and
 * Function URLs answer their own 502/504, outside the envelope) and a second for the hop.
 */
export const answerDeadlineMs = 11_000;

/** What an error answer must never carry: a message or trace from inside the service. */
const internals = [
  injectedFaultMarker,
  /\n\s+at /,
  /Exception/,
  /ECONN|EPIPE|ETIMEDOUT|socket hang up/,
  /@aws-sdk|DynamoDB|TransactionCanceled|ConditionalCheck|ThrottlingException|ProvisionedThroughput/,
];

const knownCodes = new Set<string>(errorCodes);

/**
 * What is wrong with an answer, or undefined. A 5xx is allowed only when `allow5xx` (a dependency
 * is failing on purpose), and then only as the generic internal_error envelope.
 */
export function answerProblem(status: number, text: string, allow5xx: boolean): string | undefined {
  if (status < 400) return undefined;
  if (status >= 500 && !allow5xx) return `answered ${status}: ${text.slice(0, 200)}`;
  for (const pattern of internals) {
    if (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) {
      return `answered ${status} with internals (${String(pattern)}): ${text.slice(0, 200)}`;
    }
  }
  let envelope: { success?: unknown; error?: { code?: unknown; message?: unknown } };
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    return `answered ${status} with a body that is not JSON: ${text.slice(0, 200)}`;
  }
  const code = envelope.error?.code;
  if (envelope.success !== false || typeof code !== 'string' || !knownCodes.has(code)) {
    return `answered ${status} outside the error envelope: ${text.slice(0, 200)}`;
  }
  if (status >= 500 && code !== 'internal_error') return `answered ${status} with code ${code}`;
  return undefined;
}

export interface Answer {
  /** 0 when no answer came: the connection failed, or the deadline passed. */
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answer bodies are read field by field.
  body: any;
  text: string;
  headers: Record<string, string | string[] | undefined>;
  ms: number;
  /** Why no answer came (status 0). */
  error?: string;
}

export interface FamilyFigures {
  requests: number;
  statuses: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const percentile = (sorted: number[], share: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;

/** Every answer by family, and every answer that broke a rule (the first 50 kept whole). */
export class Recorder {
  private readonly families = new Map<
    Family,
    { latencies: number[]; statuses: Record<string, number> }
  >();
  readonly problems: string[] = [];
  problemCount = 0;
  /** Answers with status 0: the service could not be reached or did not answer in time. */
  unanswered = 0;
  fiveHundreds = 0;

  private allowUnanswered = false;

  constructor(private allow5xx: boolean) {}

  /** While a dependency is failing on purpose, its requests may answer the 500 envelope. */
  allowFiveHundreds(allowed: boolean): void {
    this.allow5xx = allowed;
  }

  /** While the service is down on purpose (killed), a request may get no answer at all. */
  allowNoAnswer(allowed: boolean): void {
    this.allowUnanswered = allowed;
  }

  record(family: Family, label: string, answer: Answer): void {
    const figures = this.families.get(family) ?? { latencies: [], statuses: {} };
    this.families.set(family, figures);
    const status = answer.status === 0 ? 'none' : String(answer.status);
    figures.statuses[status] = (figures.statuses[status] ?? 0) + 1;
    if (answer.status !== 0) figures.latencies.push(answer.ms);
    if (answer.status >= 500) this.fiveHundreds += 1;
    let problem: string | undefined;
    if (answer.status === 0) {
      this.unanswered += 1;
      if (!this.allowUnanswered) problem = `no answer: ${answer.error}`;
    } else {
      problem = answerProblem(answer.status, answer.text, this.allow5xx);
    }
    if (problem === undefined) return;
    this.problemCount += 1;
    if (this.problems.length < 50) this.problems.push(`${label}: ${problem}`);
  }

  summary(): Partial<Record<Family, FamilyFigures>> {
    const result: Partial<Record<Family, FamilyFigures>> = {};
    for (const [family, { latencies, statuses }] of this.families) {
      const sorted = [...latencies].sort((a, b) => a - b);
      result[family] = {
        requests: Object.values(statuses).reduce((sum, n) => sum + n, 0),
        statuses: { ...statuses },
        p50Ms: Math.round(percentile(sorted, 0.5)),
        p99Ms: Math.round(percentile(sorted, 0.99)),
        maxMs: Math.round(sorted.at(-1) ?? 0),
      };
    }
    return result;
  }

  get requests(): number {
    let total = 0;
    for (const { statuses } of this.families.values()) {
      for (const count of Object.values(statuses)) total += count;
    }
    return total;
  }
}

/** What `send` says of a reused connection that was reset before any answer. */
const staleSocket = 'a kept-alive connection was closed as it was reused';

/**
 * Paces requests to a steady rate over every Caller that shares it (a token bucket of one):
 * the soak's offered load, whatever the latency.
 */
export class RateGate {
  private next = performance.now();

  constructor(private readonly perSecond: number) {}

  async take(): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + 1000 / this.perSecond;
    if (at > now) await new Promise((resume) => setTimeout(resume, at - now));
  }
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is (a signed receiver body), instead of `body` as JSON. */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
}

/**
 * Sends requests to the service from one loopback address (so the rate limiter sees one client
 * per Caller) over kept-alive connections, and records each answer in `recorder`.
 */
export class Caller {
  private readonly agent: Agent;
  private readonly url: URL;

  constructor(
    origin: string,
    readonly recorder: Recorder,
    private readonly localAddress = '127.0.0.1',
    private readonly gate?: RateGate,
  ) {
    this.url = new URL(origin);
    // Enough sockets that no request waits for one: a wait would count as the service's latency.
    this.agent = new Agent({ keepAlive: true, maxSockets: 256 });
  }

  /** `path` below the origin, e.g. `/v1/auth/login`. */
  async call(
    family: Family,
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<Answer> {
    await this.gate?.take();
    const answer = await this.send(method, path, options);
    this.recorder.record(family, `${method} ${path}`, answer);
    return answer;
  }

  /**
   * A request whose answer is not recorded (the local endpoints). A kept-alive connection the
   * service closed just as it was reused is retried once on a new one, as HTTP clients do (Node's
   * documentation, `request.reusedSocket`): that race is the client's, not the service's.
   */
  async send(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const answer = await this.sendOnce(method, path, options);
    return answer.error === staleSocket ? this.sendOnce(method, path, options) : answer;
  }

  private sendOnce(method: string, path: string, options: CallOptions): Promise<Answer> {
    const payload =
      options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const headers: Record<string, string> = { ...options.headers };
    if (payload !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const started = performance.now();
    return new Promise<Answer>((settle) => {
      const outgoing = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          method,
          path,
          headers,
          agent: this.agent,
          localAddress: this.localAddress,
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', (error) => fail(error.message));
          incoming.on('end', () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown;
            try {
              body = text === '' ? undefined : JSON.parse(text);
            } catch {
              body = undefined;
            }
            settle({
              status: incoming.statusCode ?? 0,
              body,
              text,
              headers: incoming.headers,
              ms: performance.now() - started,
            });
          });
        },
      );
      const fail = (error: string) => {
        clearTimeout(timer);
        outgoing.destroy();
        settle({
          status: 0,
          body: undefined,
          text: '',
          headers: {},
          ms: performance.now() - started,
          error,
        });
      };
      const timer = setTimeout(
        () => fail(`no answer within ${answerDeadlineMs} ms`),
        answerDeadlineMs,
      );
      outgoing.on('error', (error) => {
        const code = (error as NodeJS.ErrnoException).code;
        fail(
          outgoing.reusedSocket && code === 'ECONNRESET'
            ? staleSocket
            : `${code ?? ''} ${error.message}`,
        );
      });
      outgoing.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
