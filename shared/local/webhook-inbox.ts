import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import selfsigned from 'selfsigned';
import { endpointFromItem } from '../adapters/dynamo-webhook-endpoints.js';
import { dynamo } from '../adapters/dynamodb.js';
import { tableName } from '../config.js';
import type { WebhookEndpoint } from '../domain/webhooks/model.js';

/**
 * A webhook receiver for local development: `npm start` serves it over HTTPS with a certificate
 * it makes at start-up and that the service's sender trusts, so
 * `https://localhost:<port>/inbox/<name>` can be registered as an endpoint with no setting at
 * all. Each arrival is kept, and `GET /_local/inbox/<name>` lists them with their signatures
 * checked the way a receiver written to the documents would: `X-Service-Signature` as the hex
 * HMAC of the body, `webhook-signature` as Standard Webhooks — not with the service's own
 * signing code, so a mistake there shows here.
 */

/** Arrivals kept per inbox name; older ones are dropped. */
const keptPerInbox = 100;

/** Inbox names: what may follow /inbox/ in a URL (`+` is literal in a path). */
export const inboxNamePattern = /^[A-Za-z0-9_.+-]{1,64}$/;

interface Arrival {
  receivedAt: number;
  headers: Record<string, string>;
  body: string;
  answeredStatus: number;
}

export type SignatureCheck = 'verified' | 'mismatch' | 'missing';

export interface ArrivalView {
  received_at: string;
  event_id: string | null;
  event_type: string | null;
  /** The status the inbox answered with (see `answerWith`). */
  answered_status: number;
  signatures: {
    /** The endpoints registered with this URL whose secret verified the arrival. */
    endpoint_ids: string[];
    x_service_signature: SignatureCheck;
    webhook_signature: SignatureCheck;
  };
  headers: Record<string, string>;
  /** The body as JSON when it is JSON, else as text. */
  body: unknown;
  /** The body exactly as received: the bytes (UTF-8) a signature covers. */
  raw_body: string;
}

export interface WebhookInbox {
  /** `https://localhost:<port>`: register `${origin}/inbox/<name>`. */
  origin: string;
  /** The endpoint URL of the inbox `name`: `${origin}/inbox/<name>`. */
  urlOf(name: string): string;
  /** The PEM certificate the inbox serves (self-signed; the sender is told to trust it). */
  certificate: string;
  /** What arrived at one inbox, newest first, with its signatures checked. */
  list(name: string): Promise<ArrivalView[]>;
  /** Makes one inbox answer every later delivery with `status` (e.g. 503), to watch retries. */
  answerWith(name: string, status: number): void;
  /** The status one inbox answers with now (200 unless told otherwise). */
  answersWith(name: string): number;
  /** The inboxes that received something, by name. */
  names(): string[];
  close(): Promise<void>;
}

const equalText = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The document's rule: the header is the lower-case hex HMAC-SHA256 of the body. */
function checkServiceSignature(arrival: Arrival, secrets: string[]): SignatureCheck {
  const header = arrival.headers['x-service-signature'];
  if (header === undefined) return 'missing';
  return secrets.some((secret) =>
    equalText(header, createHmac('sha256', secret).update(arrival.body).digest('hex')),
  )
    ? 'verified'
    : 'mismatch';
}

/** Standard Webhooks: any `v1,<base64>` of the header over `id.timestamp.body`. */
function checkStandardSignature(arrival: Arrival, secrets: string[]): SignatureCheck {
  const { 'webhook-id': id, 'webhook-timestamp': timestamp } = arrival.headers;
  const header = arrival.headers['webhook-signature'];
  if (header === undefined || id === undefined || timestamp === undefined) return 'missing';
  const offered = header
    .split(' ')
    .flatMap((part) => (part.startsWith('v1,') ? [part.slice(3)] : []));
  const expected = secrets.map((secret) =>
    createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
      .update(`${id}.${timestamp}.${arrival.body}`)
      .digest('base64'),
  );
  return offered.some((signature) => expected.some((value) => equalText(signature, value)))
    ? 'verified'
    : 'mismatch';
}

/** The endpoints registered with this URL (a local table is small: a scan is fine here). */
async function endpointsAt(url: string): Promise<WebhookEndpoint[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(sk, :endpoint) AND #url = :url',
        ExpressionAttributeNames: { '#url': 'url' },
        ExpressionAttributeValues: { ':endpoint': 'ENDPOINT#', ':url': url },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return items.map(endpointFromItem);
}

function view(arrival: Arrival, endpoints: WebhookEndpoint[]): ArrivalView {
  const secretsOf = (endpoint: WebhookEndpoint) =>
    endpoint.previousSecret === undefined
      ? [endpoint.secret]
      : [endpoint.secret, endpoint.previousSecret];
  const verifying = endpoints.filter(
    (endpoint) =>
      checkServiceSignature(arrival, secretsOf(endpoint)) === 'verified' ||
      checkStandardSignature(arrival, secretsOf(endpoint)) === 'verified',
  );
  const secrets = endpoints.flatMap(secretsOf);
  let body: unknown = arrival.body;
  let type: string | null = null;
  try {
    body = JSON.parse(arrival.body);
    type =
      typeof (body as { type?: unknown }).type === 'string'
        ? (body as { type: string }).type
        : null;
  } catch {
    // Not JSON: shown as the text it is.
  }
  return {
    received_at: new Date(arrival.receivedAt).toISOString(),
    event_id: arrival.headers['webhook-id'] ?? null,
    event_type: type,
    answered_status: arrival.answeredStatus,
    signatures: {
      endpoint_ids: verifying.map((endpoint) => endpoint.id),
      x_service_signature: checkServiceSignature(arrival, secrets),
      webhook_signature: checkStandardSignature(arrival, secrets),
    },
    headers: arrival.headers,
    body,
    raw_body: arrival.body,
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/**
 * The subject of the inbox's certificate: its own name, not `localhost`. OpenSSL finds a trusted
 * self-signed certificate by its subject, so with a developer's own certificate for CN=localhost
 * in NODE_EXTRA_CA_CERTS, an inbox named the same was not found and every delivery to it failed
 * (DEPTH_ZERO_SELF_SIGNED_CERT). Host names are checked against subjectAltName alone.
 */
export const inboxCertificateSubject = 'Local webhook inbox of npm start';

/** Starts the inbox on `port` (0 picks a free one), with a certificate made for localhost. */
export async function startWebhookInbox(port: number): Promise<WebhookInbox> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: inboxCertificateSubject }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 365 * 24 * 60 * 60 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  const arrivals = new Map<string, Arrival[]>();
  const statuses = new Map<string, number>();

  const receive = async (request: IncomingMessage, response: ServerResponse) => {
    const name = /^\/inbox\/([^/?]+)$/.exec((request.url ?? '').split('?')[0] ?? '')?.[1];
    if (request.method !== 'POST' || name === undefined || !inboxNamePattern.test(name)) {
      answer(response, 404, { error: 'POST to /inbox/<name> (letters, digits, . + - _)' });
      return;
    }
    const body = await readBody(request);
    const status = statuses.get(name) ?? 200;
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers[header] = value;
    }
    const kept = arrivals.get(name) ?? [];
    kept.unshift({ receivedAt: Date.now(), headers, body, answeredStatus: status });
    arrivals.set(name, kept.slice(0, keptPerInbox));
    answer(
      response,
      status,
      status < 300
        ? { received: true }
        : { error: `this inbox answers ${status} (PUT /_local/inbox/${name})` },
    );
  };
  // `localhost` resolves to 127.0.0.1 or to ::1 first depending on the machine's hosts file:
  // the inbox listens on both loopbacks, on one port (the IPv6 one where the machine has it).
  const servers: Server[] = [];
  const listen = (address: string, wanted: number) => {
    const server = createServer({ key: pems.private, cert: pems.cert }, receive);
    return new Promise<number>((listening, failed) => {
      server.once('error', failed);
      server.listen(wanted, address, () => {
        servers.push(server);
        listening((server.address() as AddressInfo).port);
      });
    });
  };
  const bound = await listen('127.0.0.1', port);
  await listen('::1', bound).catch(() => undefined);
  const origin = `https://localhost:${bound}`;
  const urlOf = (name: string) => `${origin}/inbox/${name}`;

  return {
    origin,
    urlOf,
    certificate: pems.cert,
    async list(name) {
      const kept = arrivals.get(name) ?? [];
      if (kept.length === 0) return [];
      const endpoints = await endpointsAt(urlOf(name));
      return kept.map((arrival) => view(arrival, endpoints));
    },
    answerWith(name, status) {
      statuses.set(name, status);
    },
    answersWith: (name) => statuses.get(name) ?? 200,
    names: () => [...arrivals.keys()].sort(),
    close: async () => {
      await Promise.all(
        servers.map((server) => {
          server.closeAllConnections();
          return new Promise<void>((closed) => server.close(() => closed()));
        }),
      );
    },
  };
}
