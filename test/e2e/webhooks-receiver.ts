import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  /** PEM file of the self-signed certificate: what NODE_EXTRA_CA_CERTS points at. */
  caFile: string;
  cert: Buffer;
  key: Buffer;
  remove(): void;
}

/** A throwaway self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
export function makeTestCertificate(): TestCertificate {
  const directory = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
  const keyFile = join(directory, 'key.pem');
  const caFile = join(directory, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      caFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    { stdio: 'ignore' },
  );
  return {
    caFile,
    cert: readFileSync(caFile),
    key: readFileSync(keyFile),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** 50 MiB in 64 KiB chunks, written as fast as the reader takes them, until it hangs up. */
function sendHugeBody(response: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  response.writeHead(200, {
    'content-type': 'text/plain',
    'content-length': String(hugeBodyBytes),
  });
  const write = () => {
    while (sent < hugeBodyBytes && !response.destroyed) {
      sent += chunk.length;
      if (!response.write(chunk)) {
        response.once('drain', write);
        return;
      }
    }
    if (!response.destroyed) response.end();
  };
  write();
}

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** How long `/slow…` takes to answer: within the sender's 10 s, but only just. */
export const slowAnswerMs = 9_000;

/** What `/huge…` answers: a 50 MiB body, which the sender must not read whole. */
export const hugeBodyBytes = 50 * 1024 * 1024;

/**
 * An HTTPS webhook receiver: records every request and answers by path — `/ok…` 200,
 * `/fail…` 500 with a body, `/redirect…` 302 to /ok, `/hang…` never, `/slow…` 200 after 9 s,
 * `/reset…` by resetting the connection, `/huge…` 200 with a 50 MiB body.
 */
export class TestReceiver {
  readonly received: ReceivedRequest[] = [];
  /** TCP connections accepted: fewer than requests when senders keep connections alive. */
  connections = 0;
  private server: Server | undefined;
  origin = '';

  async start(certificate: TestCertificate): Promise<void> {
    this.server = createServer(
      { cert: certificate.cert, key: certificate.key },
      (request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(request.headers)) {
            if (typeof value === 'string') headers[name] = value;
          }
          const path = request.url ?? '/';
          this.received.push({
            path,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
            at: Date.now(),
          });
          if (path.startsWith('/hang')) return; // never answers
          if (path.startsWith('/reset')) {
            // Torn down mid-request, without an answer or a TLS close: the sender sees a reset.
            request.socket.destroy();
          } else if (path.startsWith('/slow')) {
            setTimeout(
              () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok, slowly'),
              slowAnswerMs,
            );
          } else if (path.startsWith('/huge')) {
            sendHugeBody(response);
          } else if (path.startsWith('/fail')) {
            response.writeHead(500, { 'content-type': 'text/plain' }).end('receiver is down');
          } else if (path.startsWith('/redirect')) {
            response.writeHead(302, { location: '/ok' }).end();
          } else {
            response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
          }
        });
      },
    );
    this.server.on('connection', () => {
      this.connections += 1;
    });
    await new Promise<void>((listening) => this.server?.listen(0, '127.0.0.1', listening));
    this.origin = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  to(path: string): ReceivedRequest[] {
    return this.received.filter((request) => request.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((closed) => this.server?.close(() => closed()));
  }
}
