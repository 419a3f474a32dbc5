import { createHmac, randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { errorCodes } from '../../../shared/domain/errors.js';
import { gatewayBHeader } from '../../domain/inbound-support.js';
import {
  type FuzzRequest,
  fuzzRequests,
  type OpenApiDocument,
  ownEndpointPlaceholder,
  type ReceiverSource,
  validTokenPlaceholder,
} from './requests.js';

/**
 * The longest any one answer may take (docs/reliability.md): a bound on liveness, not a speed
 * figure.
 */
export const answerDeadlineMs = 5_000;

export interface FuzzOptions {
  /** Origin of the service under test, e.g. http://localhost:3000. */
  origin: string;
  seed: number;
  count: number;
  /** Requests in flight at once. */
  concurrency: number;
  /**
   * The local webhook inbox's origin, when known: the fuzzer's account then has an endpoint
   * there, whose id path parameters use now and then.
   */
  inboxOrigin?: string;
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
  /** Requests and answers by status for each operation of the document (and `stray`). */
  operations: Record<string, Record<string, number>>;
  failures: FuzzFailure[];
}

/**
 * The local runtime's default secret of each sender (shared/local/runtime.ts): a fuzzed body
 * signed with it passes the signature check and reaches the event's parser.
 */
const localSenderSecrets: Record<ReceiverSource, string> = {
  'gateway-a': 'local-gateway-a-secret',
  'gateway-b': 'local-gateway-b-secret',
  messaging: 'local-messaging-app-secret',
};

function signatureHeaders(source: ReceiverSource, body: Buffer): Record<string, string> {
  const hex = () => createHmac('sha256', localSenderSecrets[source]).update(body).digest('hex');
  switch (source) {
    case 'gateway-a':
      return { 'x-gateway-a-signature': hex() };
    case 'gateway-b':
      return {
        'stripe-signature': gatewayBHeader(
          body.toString('utf8'),
          Date.now(),
          localSenderSecrets[source],
        ),
      };
    case 'messaging':
      return { 'x-hub-signature-256': `sha256=${hex()}` };
  }
}

/**
 * The fuzzer's own account, signed in: its access token fills the valid-token placeholder (and is
 * renewed when a fuzzed logout ends its session), its endpoint the own-endpoint placeholder.
 */
class FuzzAccount {
  token = '';
  endpoint = 'whk_none';
  private renewing: Promise<void> | undefined;
  private readonly email = `fuzz-${randomUUID().slice(0, 12)}@example.com`;
  private readonly password = `fuzz password ${randomUUID()}`;

  constructor(private readonly origin: string) {}

  async open(inboxOrigin: string | undefined): Promise<void> {
    await this.post('/v1/auth/signup', {
      name: 'Fuzz',
      email: this.email,
      password: this.password,
    });
    const outbox = (await (
      await fetch(`${this.origin}/_local/outbox?to=${encodeURIComponent(this.email)}`)
    ).json()) as { data: { text: string }[] };
    const otp = /\b(\d{6})\b/.exec(outbox.data[0]?.text ?? '')?.[1];
    const activated = await this.post('/v1/auth/verify-signup-otp', { email: this.email, otp });
    this.token = activated.data.access_token;
    if (inboxOrigin === undefined) return;
    const endpoint = await this.post(
      '/v1/webhooks',
      { url: `${inboxOrigin}/inbox/fuzz`, events: ['order.created'] },
      this.token,
    );
    this.endpoint = endpoint.data.id;
  }

  /** Signs in again (once for every caller that found the token ended). */
  renew(): Promise<void> {
    this.renewing ??= this.post('/v1/auth/login', { email: this.email, password: this.password })
      .then((signedIn) => {
        this.token = signedIn.data.access_token;
      })
      .finally(() => {
        this.renewing = undefined;
      });
    return this.renewing;
  }

  // biome-ignore lint/suspicious/noExplicitAny: the answers are read field by field.
  private async post(path: string, body: unknown, token?: string): Promise<any> {
    const response = await fetch(`${this.origin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
    });
    if (response.status >= 300) {
      throw new Error(`the fuzzer's account: ${path} answered ${response.status}`);
    }
    return response.json();
  }
}

/** The request as sent: placeholders filled, signed if it is to be. */
function concrete(fuzzed: FuzzRequest, account: FuzzAccount): FuzzRequest {
  const headers = { ...fuzzed.headers };
  if (headers.authorization === validTokenPlaceholder)
    headers.authorization = `Bearer ${account.token}`;
  if (fuzzed.signedAs !== undefined && fuzzed.body !== undefined) {
    Object.assign(headers, signatureHeaders(fuzzed.signedAs, fuzzed.body));
  }
  return {
    ...fuzzed,
    target: fuzzed.target.replaceAll(ownEndpointPlaceholder, account.endpoint),
    headers,
  };
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
  const account = new FuzzAccount(options.origin);
  await account.open(options.inboxOrigin);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const statuses: Record<string, number> = {};
  const operations: Record<string, Record<string, number>> = {};
  const failures: FuzzFailure[] = [];
  const tally = (operation: string, status: string) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    operations[operation] ??= {};
    operations[operation][status] = (operations[operation][status] ?? 0) + 1;
  };
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < requests.length; index = next++) {
      const fuzzed = concrete(requests[index]!, account);
      let problem: string | undefined;
      try {
        const answer = await send(options.origin, agent, fuzzed);
        tally(fuzzed.operation, String(answer.status));
        problem = problemWith(fuzzed, answer);
        // A fuzzed logout (or logout-all) ended the account's session: sign in again.
        if (
          answer.status === 401 &&
          requests[index]!.headers.authorization === validTokenPlaceholder
        ) {
          await account.renew();
        }
      } catch (error) {
        // The runtime may close a connection on framing it refuses (an overlong header block);
        // a missed deadline or a refused connection (the service gone) breaks the rules.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ECONNRESET' || code === 'EPIPE') tally(fuzzed.operation, 'closed');
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
  return { seed: options.seed, sent: requests.length, statuses, operations, failures };
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
