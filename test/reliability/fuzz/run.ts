import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { errorCodes } from '../../../shared/domain/errors.js';
import { type FuzzRequest, fuzzRequests, type OpenApiDocument } from './requests.js';

/** The longest any one answer may take (issue 17): a bound on liveness, not a speed figure. */
export const answerDeadlineMs = 5_000;

export interface FuzzOptions {
  /** Origin of the service under test, e.g. http://localhost:3000. */
  origin: string;
  seed: number;
  count: number;
  /** Requests in flight at once. */
  concurrency: number;
}

export interface FuzzFailure {
  index: number;
  request: FuzzRequest;
  problem: string;
}

export interface FuzzReport {
  seed: number;
  sent: number;
  statuses: Record<string, number>;
  failures: FuzzFailure[];
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function send(origin: string, agent: Agent, fuzzed: FuzzRequest): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: hostname,
        port,
        agent,
        method: fuzzed.method,
        path: fuzzed.target,
        // Framed as a real client frames it: Node's client would send a DELETE or OPTIONS body
        // with no length, and its bytes would then read as a garbage next request on the socket
        // (framing errors are test/e2e/hostile-transport.test.ts's).
        headers:
          fuzzed.body === undefined
            ? fuzzed.headers
            : { ...fuzzed.headers, 'content-length': String(fuzzed.body.length) },
        timeout: answerDeadlineMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`no answer within ${answerDeadlineMs} ms`)),
    );
    outgoing.on('error', reject);
    outgoing.end(fuzzed.body);
  });
}

const knownCodes = new Set<string>(errorCodes);

/** What is wrong with an answer, or undefined when it keeps every rule. */
export function problemWith(fuzzed: FuzzRequest, answer: Answer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}`;
  if (answer.status < 400 || fuzzed.method === 'HEAD') return undefined;
  // Framing the runtime cannot parse (a header block over the limit) may be answered by a
  // status alone on a connection it then closes.
  if (answer.body.length === 0 && answer.headers.connection === 'close') return undefined;
  let envelope: unknown;
  try {
    envelope = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${answer.body.toString('utf8').slice(0, 120)}`;
  }
  const error = (envelope as { success?: unknown; error?: Record<string, unknown> }).error;
  if ((envelope as { success?: unknown }).success !== false || error === undefined) {
    return `answered ${answer.status} without the error envelope`;
  }
  if (typeof error.code !== 'string' || !knownCodes.has(error.code)) {
    return `answered ${answer.status} with an unknown code ${String(error.code)}`;
  }
  if (typeof error.message !== 'string' || error.message === '') {
    return `answered ${answer.status} without a message`;
  }
  const details = error.details;
  if (
    !Array.isArray(details) ||
    details.some(
      (detail) =>
        typeof detail?.field !== 'string' ||
        typeof detail?.message !== 'string' ||
        /Invalid (key|type|length): Expected/.test(detail.message),
    )
  ) {
    return `answered ${answer.status} with malformed details ${JSON.stringify(details)}`;
  }
  return undefined;
}

/** Renders a request so that it can be read and replayed from a failure report. */
export function describeRequest(fuzzed: FuzzRequest): string {
  const body = fuzzed.body?.toString('utf8') ?? '';
  const headers = Object.entries(fuzzed.headers)
    .map(
      ([name, value]) =>
        `${name}: ${value.length > 120 ? `${value.slice(0, 120)}… (${value.length} chars)` : value}`,
    )
    .join('\n  ');
  return `${fuzzed.method} ${fuzzed.target.slice(0, 300)}\n  ${headers}\n  body (${fuzzed.body?.length ?? 0} bytes): ${body.slice(0, 300)}`;
}

/**
 * Sends `count` requests generated from the service's OpenAPI document with the given seed (the
 * same seed, the same requests) and checks every answer: no 5xx, every 4xx the error envelope
 * with a code from the catalogue and readable details, every answer within the deadline.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const response = await fetch(`${options.origin}/v1/openapi.json`);
  const document = (await response.json()) as OpenApiDocument;
  const requests = fc.sample(fuzzRequests(document), {
    seed: options.seed,
    numRuns: options.count,
  });
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const statuses: Record<string, number> = {};
  const failures: FuzzFailure[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < requests.length; index = next++) {
      const fuzzed = requests[index]!;
      let problem: string | undefined;
      try {
        const answer = await send(options.origin, agent, fuzzed);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        problem = problemWith(fuzzed, answer);
      } catch (error) {
        // The runtime may close a connection on framing it refuses (an overlong header block);
        // a missed deadline or a refused connection (the service gone) breaks the rules.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ECONNRESET' || code === 'EPIPE') statuses.closed = (statuses.closed ?? 0) + 1;
        else problem = error instanceof Error ? error.message : String(error);
      }
      if (problem !== undefined) failures.push({ index, request: fuzzed, problem });
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return { seed: options.seed, sent: requests.length, statuses, failures };
}

/** A failure report a person can act on: the seed to replay, and each bad request. */
export function describeFailures(report: FuzzReport): string {
  return [
    `${report.failures.length} of ${report.sent} fuzzed requests broke a rule (seed ${report.seed}; replay with FUZZ_SEED=${report.seed}):`,
    ...report.failures
      .slice(0, 10)
      .map(
        (failure) => `#${failure.index}: ${failure.problem}\n${describeRequest(failure.request)}`,
      ),
  ].join('\n\n');
}
