import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  httpsWebhookSender,
  trustCertificate,
} from '../../shared/adapters/https-webhook-sender.js';
import { exemptOrigin } from '../../shared/adapters/webhook-url-guard.js';
import { makeTestCertificate, type TestCertificate } from '../e2e/webhooks-receiver.js';

/**
 * A receiver closes a kept-alive connection once it has been idle for its own timeout (Node's
 * default 5 s, announced as `Keep-Alive: timeout=5`). An attempt that takes such a connection from
 * the pool just as the receiver closes it fails with "socket hang up" although the receiver was
 * fine (the chaos suite met it). The sender must let go of an idle connection first.
 */

let certificate: TestCertificate;
let server: Server;
let origin: string;
/** How each connection the receiver saw ended: the sender hung up, or the receiver's timeout. */
const endings: Promise<'sender' | 'receiver'>[] = [];

beforeAll(async () => {
  certificate = makeTestCertificate();
  trustCertificate(certificate.cert.toString('utf8'));
  server = createServer({ cert: certificate.cert, key: certificate.key }, (_request, response) =>
    response.writeHead(204).end(),
  );
  server.keepAliveTimeout = 3_000;
  server.on('secureConnection', (socket: TLSSocket) => {
    let endedBySender = false;
    socket.on('end', () => {
      endedBySender = true;
    });
    endings.push(once(socket, 'close').then(() => (endedBySender ? 'sender' : 'receiver')));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  exemptOrigin(origin);
});

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  certificate?.remove();
});

it('closes a pooled connection before the receiver’s announced keep-alive timeout ends it', async () => {
  const outcome = await httpsWebhookSender.send({
    url: `${origin}/hook`,
    body: '{"id":"evt_keep_alive"}',
    headers: { 'content-type': 'application/json' },
  });
  expect(outcome).toMatchObject({ status: 204 });
  expect(endings).toHaveLength(1);
  // Without the sender's own idle limit, the receiver's 3 s timeout ends the connection.
  expect(await endings[0]).toBe('sender');
});
