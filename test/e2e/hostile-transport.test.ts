import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * What a hostile client can send the local runtime at the transport level: hand-framed requests
 * with malformed Host headers and request targets, bodies over the read limit, forwarded headers
 * that try to rewrite the OpenAPI document. Whatever arrives, the answer is a 4xx in the error
 * envelope (or a closed connection for framing that cannot be parsed), never a 5xx.
 */

let service: LocalService;
let port: number;
const servers = ['https://accounts.example.com/v1', 'https://api.example.com/v1'];

beforeAll(async () => {
  service = await startLocalService({ PUBLIC_BASE_URLS: servers.join(',') });
  port = Number(new URL(service.origin).port);
});

afterAll(async () => {
  await service?.stop();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are and reads the whole answer; the runtime closes the connection. */
function raw(bytes: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

const get = (target: string, headerLines: string[]) =>
  raw(`${[`GET ${target} HTTP/1.1`, ...headerLines, 'Connection: close'].join('\r\n')}\r\n\r\n`);

/** The body of a chunked or plain answer, parsed as the error envelope or a document. */
function json(response: RawResponse): unknown {
  const body =
    response.headers['transfer-encoding'] === 'chunked'
      ? response.body
          .split('\r\n')
          .filter((_, index) => index % 2 === 1)
          .join('')
      : response.body;
  return JSON.parse(body);
}

const errorEnvelope = (code: string) => ({
  success: false,
  error: { code, message: expect.any(String), details: expect.any(Array) },
});

describe('hostile transport against the local runtime', () => {
  it.each([
    ['a Host with a space', ['Host: exa mple']],
    ['an empty Host', ['Host:']],
    ['a Host with two colons', ['Host: a:b:c']],
    ['an unclosed IPv6 Host', ['Host: [::1']],
  ])('serves the OpenAPI document whatever the Host: %s', async (_, headerLines) => {
    const response = await get('/v1/openapi.json', headerLines);
    expect(response.status).toBe(200);
    expect((json(response) as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('refuses an HTTP/1.1 request without a Host with the 400 envelope (RFC 9112)', async () => {
    const response = await get('/v1/openapi.json', []);
    expect(response.status).toBe(400);
    expect(json(response)).toEqual(errorEnvelope('invalid_request'));
  });

  it('answers an unknown path under a malformed Host with the 404 envelope', async () => {
    const response = await get('/v1/no/such/route', ['Host: exa mple']);
    expect(response.status).toBe(404);
    expect(json(response)).toEqual(errorEnvelope('not_found'));
  });

  it.each([
    ['a protocol-relative target', '//v1/openapi.json', 404],
    ['an absolute-form target naming another host', 'http://evil.test/v1/openapi.json', 200],
    ['an asterisk target', '*', 400],
    ['bad percent-encoding', '/v1/webhooks/%zz', 401],
  ])('answers %s without a 5xx', async (_, target, status) => {
    const response = await get(target, ['Host: localhost']);
    expect(response.status).toBe(status);
    if (status !== 200) expect(json(response)).toEqual(errorEnvelope(expect.any(String)));
  });

  it('answers framing it cannot parse with a 400 envelope and closes the connection', async () => {
    const response = await raw('GET /v1/openapi.json HTTP/1.1\r\nBad Header\r\n\r\n');
    expect(response.status).toBe(400);
    expect(response.headers.connection).toBe('close');
    expect(json(response)).toEqual(errorEnvelope('invalid_request'));
  });

  it.each([
    ['a lower-case method', 'post /v1/auth/login HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['a method with a stray character', 'P@ST /v1/auth/login HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['an unknown protocol', 'GET /v1/openapi.json HTTP/9\r\nHost: localhost\r\n\r\n'],
  ])('answers a request line with %s with the 400 envelope', async (_, bytes) => {
    const response = await raw(bytes);
    expect(response.status).toBe(400);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(json(response)).toEqual(errorEnvelope('invalid_request'));
  });

  it.each([
    ['HEAD', 'HEAD /v1/openapi.json HTTP/1.1\r\nBad Header\r\n\r\n'],
    ['head', 'head /v1/openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['garbage', '\u0001\u0002\u0003 nonsense\r\n\r\n'],
  ])(
    'answers unparseable framing of %s with a bare 400 that claims no JSON body',
    async (_, bytes) => {
      const response = await raw(bytes);
      expect(response.status).toBe(400);
      expect(response.body).toBe('');
      expect(response.headers['content-type']).toBeUndefined();
      expect(response.headers['content-length']).toBe('0');
    },
  );

  it.each(['HEAD', 'GET'])(
    'answers a %s whose header block is too large with 431, no body, and closes',
    async (method) => {
      // Found by the fuzzer: a body after a HEAD's answer reads as garbage to the client.
      const response = await raw(
        `${method} /v1/openapi.json HTTP/1.1\r\nHost: localhost\r\nX-Overlong: ${'h'.repeat(20_000)}\r\n\r\n`,
      );
      expect(response.status).toBe(431);
      expect(response.headers.connection).toBe('close');
      expect(response.body).toBe('');
    },
  );

  it('refuses a declared body over the limit at once, before it is sent', async () => {
    const response = await raw(
      'POST /v1/auth/signup HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 7340032\r\n\r\n',
    );
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
    expect(json(response)).toEqual(errorEnvelope('payload_too_large'));
  });

  it('closes the connection of a refused oversized body, so the next request does not wait on it', async () => {
    // One keep-alive socket: a request queued behind the oversized one reuses it unless the
    // runtime says the connection closes.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: Buffer) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const outgoing = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            agent,
            headers: { 'content-type': 'application/json' },
          },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                connection: response.headers.connection,
              }),
            );
          },
        );
        outgoing.on('error', reject);
        // Written before end(): sent chunked, with no Content-Length to refuse it by up front.
        if (body !== undefined) outgoing.write(body);
        outgoing.end();
      });
    try {
      // Streamed without a Content-Length: refused only once 6 MiB have been read.
      const oversized = send('POST', '/v1/auth/signup', Buffer.alloc(7 * 1024 * 1024, 'a'));
      const next = send('GET', '/v1/openapi.json');
      expect(await oversized).toEqual({ status: 413, connection: 'close' });
      expect((await next).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('lists the configured servers in the OpenAPI document, never a forwarded or Host value', async () => {
    const response = await get('/v1/openapi.json', [
      'Host: attacker.test',
      'X-Forwarded-Host: attacker.test',
      'X-Forwarded-Proto: https',
    ]);
    const document = json(response) as { servers: { url: string }[] };
    expect(document.servers.map((server) => server.url)).toEqual(servers);
  });
});
