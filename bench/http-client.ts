import { Agent, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  body: string;
  /** Wall time from sending to the last byte, in ms. */
  ms: number;
}

export interface HttpCall {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A keep-alive client on node:http: cheaper per request than fetch, so the client's own CPU
 * distorts the in-process figures less, and the same code drives every loop so figures compare.
 */
export class BenchClient {
  private readonly agent: Agent;

  constructor(
    maxSockets = 16,
    private readonly timeoutMs = 15_000,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  send(call: HttpCall): Promise<HttpAnswer> {
    const started = performance.now();
    return new Promise((answered, failed) => {
      const outgoing = request(
        call.url,
        {
          method: call.method,
          agent: this.agent,
          headers: {
            ...(call.body === undefined
              ? {}
              : {
                  'content-type': 'application/json',
                  'content-length': String(Buffer.byteLength(call.body)),
                }),
            ...call.headers,
          },
          timeout: this.timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            answered({
              status: response.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              ms: performance.now() - started,
            }),
          );
          response.on('error', failed);
        },
      );
      outgoing.on('timeout', () =>
        outgoing.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
      );
      outgoing.on('error', failed);
      outgoing.end(call.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The `data` of a success envelope, or an error naming the status and error code. */
export function dataOf<T>(answer: HttpAnswer, what?: string): T {
  const prefix = what === undefined ? '' : `${what}: `;
  let parsed: { success?: boolean; data?: T; error?: { code?: string; message?: string } };
  try {
    parsed = JSON.parse(answer.body) as typeof parsed;
  } catch {
    throw new Error(`${prefix}${answer.status} with a non-JSON body`);
  }
  if (answer.status >= 200 && answer.status < 300 && parsed.success === true)
    return parsed.data as T;
  throw new Error(`${prefix}${answer.status} ${parsed.error?.code ?? 'no error code'}`);
}
