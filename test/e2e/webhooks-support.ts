import { createHmac, timingSafeEqual } from 'node:crypto';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient } from './accounts-support.js';
import { makeTestCertificate, TestReceiver } from './webhooks-receiver.js';

/** The owner of webhook endpoints in a black-box test: a verified account, signed in. */
export interface WebhookOwner {
  token: string;
  userId: string;
  email: string;
  password: string;
}

export async function webhookOwner(client: AccountClient): Promise<WebhookOwner> {
  const { email, password, tokens } = await client.verifiedAccount();
  return { token: tokens.access_token, userId: tokens.user.id, email, password };
}

/** The order data of the `order.*` event types (docs/webhooks.md, "Event types and their data"). */
export const order = { order_id: 'ord_42', status: 'placed', total: 19.99, currency: 'EUR' };

/**
 * The interface document's rule, and nothing more, as a receiver written to it checks a
 * delivery: the X-Service-Signature header is the lower-case hex HMAC-SHA256 of the raw body
 * keyed with the secret, compared whole and in constant time.
 */
export function verifiesByDocumentRule(
  secret: string,
  request: { body: string; headers: Record<string, string> },
): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(request.body).digest('hex'));
  const sent = Buffer.from(request.headers['x-service-signature'] ?? '');
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/** The Standard Webhooks headers of a received request, as `Webhook.verify` takes them. */
export const standardHeaders = (request: { headers: Record<string, string> }) => ({
  'webhook-id': request.headers['webhook-id'] ?? '',
  'webhook-timestamp': request.headers['webhook-timestamp'] ?? '',
  'webhook-signature': request.headers['webhook-signature'] ?? '',
});

/**
 * The service as `npm start` runs it, trusting the certificate of an HTTPS test receiver on
 * 127.0.0.1 (private networks allowed, for that receiver only), with `env` on top.
 */
export async function startWebhookService(env: Record<string, string>): Promise<{
  service: LocalService;
  client: AccountClient;
  receiver: TestReceiver;
  stop(): Promise<void>;
}> {
  const certificate = makeTestCertificate();
  const receiver = new TestReceiver();
  await receiver.start(certificate);
  const service = await startLocalService({
    WEBHOOK_ALLOW_PRIVATE_NETWORK: 'true',
    NODE_EXTRA_CA_CERTS: certificate.caFile,
    ...env,
  });
  return {
    service,
    client: new AccountClient(service),
    receiver,
    stop: async () => {
      await service.stop();
      await receiver.stop();
      certificate.remove();
    },
  };
}
