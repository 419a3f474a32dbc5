import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  httpsWebhookSender,
  trustCertificate,
} from '../../shared/adapters/https-webhook-sender.js';
import { exemptOrigin } from '../../shared/adapters/webhook-url-guard.js';
import { startWebhookInbox, type WebhookInbox } from '../../shared/local/webhook-inbox.js';
import { makeTestCertificate, type TestCertificate } from '../e2e/webhooks-receiver.js';
import { useFreshTable } from '../support/table.js';

/**
 * The local inbox as `npm start` wires it — its certificate trusted beside NODE_EXTRA_CA_CERTS —
 * when a developer's own self-signed certificate for CN=localhost is in NODE_EXTRA_CA_CERTS (the
 * chaos suite's receivers made this case): deliveries to the inbox must still verify.
 */

let inbox: WebhookInbox;
let developers: TestCertificate;

beforeAll(async () => {
  // The inbox checks arrivals' signatures against the endpoints stored with their URL.
  await useFreshTable();
  developers = makeTestCertificate();
  process.env.NODE_EXTRA_CA_CERTS = developers.caFile;
  inbox = await startWebhookInbox(0);
  trustCertificate(inbox.certificate);
  exemptOrigin(inbox.origin);
});

afterAll(async () => {
  await inbox?.close();
  developers?.remove();
  delete process.env.NODE_EXTRA_CA_CERTS;
});

it('delivers to the inbox while NODE_EXTRA_CA_CERTS holds another certificate for localhost', async () => {
  const outcome = await httpsWebhookSender.send({
    url: `${inbox.origin}/inbox/trust`,
    body: '{"id":"evt_trust","type":"webhook.test"}',
    headers: { 'content-type': 'application/json' },
  });

  expect(outcome.error).toBeUndefined();
  expect(outcome.status).toBe(200);
  expect(await inbox.list('trust')).toHaveLength(1);
});
