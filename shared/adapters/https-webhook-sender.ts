import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { SendOutcome, SignedRequest, WebhookSender } from '../domain/webhooks/ports.js';
import { resolveTarget } from './webhook-url-guard.js';

/**
 * A 2xx within this time is success (docs/webhooks.md, "Answer fast"); the whole exchange is
 * cut off after it.
 */
export const attemptTimeoutMs = 10_000;

/** What an attempt keeps of the response body. */
export const storedResponseBytes = 1024;

/** What an attempt keeps of the response headers (`name: value` lines, in the order sent). */
export const storedResponseHeaderBytes = 1024;

/**
 * The response's headers, names in lower case, as many whole ones as fit in
 * `storedResponseHeaderBytes` (a repeated name's values joined with `, `).
 */
function keptHeaders(raw: string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  let bytes = 0;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    const value = raw[index + 1]!;
    bytes += Buffer.byteLength(`${name}: ${value}\r\n`);
    if (bytes > storedResponseHeaderBytes) break;
    kept[name] = kept[name] === undefined ? value : `${kept[name]}, ${value}`;
  }
  return kept;
}

/** Past this much body the socket is dropped instead of drained for reuse. */
const maxDrainBytes = 64 * 1024;

/**
 * Keep-alive: consecutive attempts to one receiver reuse the TLS connection. Pooled sockets are
 * keyed by host name; each was opened to an address the guard had checked, and every attempt
 * re-checks the name before a socket is taken. As many sockets stay open as may be busy at once:
 * a burst of parallel attempts to one receiver (a worker's batch) that closed all but a few
 * would pay a new TLS handshake (1.6-1.8 ms of CPU against 0.2 for a reused socket) for each of
 * the others next time. A new connection to a receiver seen before resumes its TLS session.
 */
const agentOptions = {
  keepAlive: true,
  maxSockets: 64,
  maxFreeSockets: 64,
  /**
   * An idle pooled connection is closed after 4 s, or 1 s before the receiver's announced
   * `Keep-Alive: timeout=N` if that is sooner (Node applies the hint only when this is set). A
   * receiver closes idle connections on its own clock (Node's default is 5 s); one taken from the
   * pool just as that happens fails the attempt with "socket hang up" though the receiver is well.
   * Node destroys only idle sockets on this timeout: a busy one is bounded by the attempt's 10 s.
   */
  timeout: 4_000,
};
let agent = new Agent(agentOptions);

/**
 * Trusts one more certificate authority besides the system's and NODE_EXTRA_CA_CERTS's: the
 * self-signed certificate of the local webhook inbox, which exists only once `npm start` runs
 * (Node reads NODE_EXTRA_CA_CERTS at start-up only). Only the local runtime calls this.
 */
export function trustCertificate(pem: string): void {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  agent.destroy();
  agent = new Agent({
    ...agentOptions,
    // One context, built once: given as `ca`, Node would parse the ~140 root certificates again
    // for every new connection, and join them into the pool's key on every request.
    secureContext: createSecureContext({
      // Given `ca`, Node trusts only what it lists: the system roots and the extra file go too.
      ca: [...rootCertificates, ...(extra === undefined ? [] : [readFileSync(extra, 'utf8')]), pem],
    }),
  });
}

/** A lookup that answers only with the address the guard checked. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      (
        callback as unknown as (
          error: null,
          addresses: { address: string; family: number }[],
        ) => void
      )(null, [{ address, family }]);
    } else {
      callback(null, address, family);
    }
  };
}

const describeError = (error: unknown): string => {
  if (!(error instanceof Error)) return 'network error';
  const code = (error as NodeJS.ErrnoException).code;
  return (code ? `${code}: ${error.message}` : error.message).slice(0, 300);
};

/**
 * Posts an attempt with node:https: SSRF-checked and pinned to the checked address, redirects
 * not followed (a 3xx is a failed attempt), 10 s for the whole exchange. Trusts the system CAs
 * plus NODE_EXTRA_CA_CERTS (which Node reads at start-up), and locally the inbox's certificate.
 */
export const httpsWebhookSender: WebhookSender = {
  async send(signed: SignedRequest): Promise<SendOutcome> {
    const startedAt = performance.now();
    const elapsed = () => Math.round(performance.now() - startedAt);
    const target = await resolveTarget(signed.url);
    if (!target.ok) return { latencyMs: elapsed(), error: `refused: the URL ${target.reason}` };
    const { url } = target;
    const body = Buffer.from(signed.body, 'utf8');

    return new Promise<SendOutcome>((settle) => {
      let status: number | undefined;
      let headers: Record<string, string> | undefined;
      let settled = false;
      const finish = (outcome: Omit<SendOutcome, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        settle({ ...outcome, latencyMs: elapsed() });
      };
      const outgoing = request(
        {
          protocol: 'https:',
          host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port === '' ? 443 : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...signed.headers, 'content-length': String(body.length) },
          agent,
          lookup: pinnedLookup(target.address, target.family),
        },
        (response) => {
          status = response.statusCode;
          headers = keptHeaders(response.rawHeaders);
          const kept: Buffer[] = [];
          let keptBytes = 0;
          let seenBytes = 0;
          response.on('data', (chunk: Buffer) => {
            seenBytes += chunk.length;
            if (keptBytes < storedResponseBytes) {
              const part = chunk.subarray(0, storedResponseBytes - keptBytes);
              kept.push(part);
              keptBytes += part.length;
            }
            if (seenBytes > maxDrainBytes) response.destroy();
          });
          const done = () => {
            const text = Buffer.concat(kept).toString('utf8');
            const redirect =
              status !== undefined && status >= 300 && status < 400
                ? `redirect not followed (HTTP ${status}${response.headers.location ? ` to ${response.headers.location}` : ''})`
                : undefined;
            finish({ status, headers, body: text === '' ? undefined : text, error: redirect });
          };
          response.on('end', done);
          response.on('close', done);
        },
      );
      // The budget counts from before the DNS lookup: a slow resolver eats into it too.
      const timer = setTimeout(
        () => {
          outgoing.destroy(new Error(`no complete response within ${attemptTimeoutMs / 1000} s`));
        },
        Math.max(0, attemptTimeoutMs - elapsed()),
      );
      outgoing.on('error', (error) => {
        // A status that arrived before the cut-off still counts (the body was cut short).
        finish(status === undefined ? { error: describeError(error) } : { status, headers });
      });
      outgoing.end(body);
    });
  },
};
