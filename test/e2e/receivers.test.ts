import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../functions/routes.js';
import { dynamoInboundAttemptLog } from '../../shared/adapters/dynamo-inbound-attempts.js';
import { inboundEventState } from '../../shared/adapters/dynamo-inbound-events.js';
import { findMessagingRecord } from '../../shared/adapters/dynamo-messaging-records.js';
import { findSubscription } from '../../shared/adapters/dynamo-subscriptions.js';
import { keys } from '../../shared/adapters/keys.js';
import type { InboundSource } from '../../shared/domain/inbound/model.js';
import {
  gatewayAPaymentEvent,
  gatewayBEvent,
  gatewayBHeader,
  hexHmac,
  messagingNotification,
} from '../domain/inbound-support.js';
import { checkContract } from '../support/contract.js';
import { type LocalService, startLocalService, useServiceTable } from '../support/local-service.js';

const secrets = {
  GATEWAY_A_WEBHOOK_SECRET: 'gateway-a-new,gateway-a-old',
  GATEWAY_B_WEBHOOK_SECRET: 'whsec_b_new,whsec_b_old',
  MESSAGING_APP_SECRET: 'messaging-app-secret',
  MESSAGING_VERIFY_TOKEN: 'verify-me',
};

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService(secrets);
  // Audit and state are read with the service's own repositories, from its DynamoDB Local.
  useServiceTable(service);
});

afterAll(async () => {
  await service?.stop();
});

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  json: () => Record<string, unknown>;
}

async function call(
  path: string,
  body: string | Buffer | undefined,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Answer> {
  const sent = { headers: new Headers({ 'content-type': 'application/json', ...headers }), body };
  const response = await fetch(`${service.baseUrl}${path}`, { method, ...sent });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(500);
  checkContract(
    method,
    path,
    {
      status: response.status,
      headers: response.headers,
      body: response.headers.get('content-type')?.startsWith('application/json')
        ? JSON.parse(text)
        : text,
    },
    sent,
  );
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    json: () => JSON.parse(text) as Record<string, unknown>,
  };
}

const postB = (body: string, header = gatewayBHeader(body, Date.now(), 'whsec_b_new')) =>
  call('/gateway-b-webhook', body, { 'stripe-signature': header });

const processed = (source: InboundSource, eventId: string) =>
  expect.poll(async () => (await inboundEventState(source, eventId))?.status, { timeout: 10_000 });

async function attemptsOf(source: InboundSource) {
  return (await dynamoInboundAttemptLog.listBySource(source, { limit: 100 })).attempts;
}

const ack = (eventId: string, duplicate: boolean, route: string) => ({
  success: true,
  data: { received: true, event_id: eventId, duplicate, route },
});

describe('gateway B', () => {
  it('acknowledges a signed payment event and turns it into an outbound payment event', async () => {
    const event = gatewayBEvent('payment_intent.succeeded', {
      id: 'pi_e2e',
      amount: 2599,
      amount_received: 2599,
      currency: 'usd',
      metadata: { account_id: `usr_${randomUUID()}` },
    });

    const answer = await postB(JSON.stringify(event));

    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual(ack(event.id, false, 'general'));
    await processed('gateway-b', event.id).toBe('processed');
    expect((await inboundEventState('gateway-b', event.id))?.result).toBe(
      'published payment.successful',
    );
  });

  it('verifies the bytes as sent: odd whitespace, key order and unicode pass, a re-serialised copy does not', async () => {
    const id = `evt_${randomUUID()}`;
    const raw = `{\n  "type" :"customer.created",   "id":"${id}",\t"data":{"object":{"name":"Zo\u00eb \u6f22\u5b57 \ud83d\ude00"}}}\r\n`;
    const header = gatewayBHeader(raw, Date.now(), 'whsec_b_new');

    const reserialised = await postB(JSON.stringify(JSON.parse(raw)), header);
    const exact = await postB(raw, header);

    expect(reserialised.status).toBe(401);
    expect(reserialised.json()).toMatchObject({ error: { code: 'invalid_signature' } });
    expect(exact.json()).toEqual(ack(id, false, 'general'));
  });

  it('verifies a body the Function URL base64-encodes (a non-text content type)', async () => {
    const event = gatewayBEvent('customer.updated', { id: 'cus_1' });
    const body = Buffer.from(JSON.stringify(event), 'utf8');
    const answer = await call('/gateway-b-webhook', body, {
      'content-type': 'application/octet-stream',
      'gateway-b-signature': gatewayBHeader(body.toString('utf8'), Date.now(), 'whsec_b_new'),
    });
    expect(answer.json()).toEqual(ack(event.id, false, 'general'));
  });

  it('accepts the previous secret during rotation and several v1 signatures', async () => {
    const body = JSON.stringify(gatewayBEvent('customer.deleted', { id: 'cus_2' }));
    const old = gatewayBHeader(body, Date.now(), 'whsec_b_old');
    const [timestamp, signature] = old.split(',');
    const several = `${timestamp},v1=${'a'.repeat(64)},${signature}`;
    expect((await postB(body, several)).status).toBe(200);
  });

  it('refuses a timestamp older than 300 seconds', async () => {
    const body = JSON.stringify(gatewayBEvent('customer.updated', { id: 'cus_3' }));
    const answer = await postB(body, gatewayBHeader(body, Date.now() - 301_000, 'whsec_b_new'));
    expect(answer.status).toBe(401);
    expect(answer.json()).toMatchObject({ error: { code: 'invalid_signature' } });
  });

  it('acknowledges a replay as a duplicate and processes the event once', async () => {
    const event = gatewayBEvent('payment_intent.payment_failed', {
      id: 'pi_replay',
      amount: 700,
      currency: 'gbp',
      metadata: { account_id: `usr_${randomUUID()}` },
    });
    const body = JSON.stringify(event);

    const first = await postB(body);
    await processed('gateway-b', event.id).toBe('processed');
    const replay = await postB(body);

    expect(first.json()).toEqual(ack(event.id, false, 'general'));
    expect(replay.json()).toEqual(ack(event.id, true, 'general'));
    const outcomes = (await attemptsOf('gateway-b'))
      .filter((attempt) => attempt.eventId === event.id)
      .map((attempt) => attempt.outcome);
    expect(outcomes).toEqual(['duplicate', 'accepted']);
  });

  it('accepts one of two copies arriving at the same moment and processes it once', async () => {
    const event = gatewayBEvent('payment_intent.succeeded', {
      id: 'pi_twins',
      amount: 100,
      currency: 'usd',
      metadata: { account_id: `usr_${randomUUID()}` },
    });
    const body = JSON.stringify(event);

    const answers = await Promise.all([postB(body), postB(body)]);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(
      answers.map((answer) => (answer.json().data as { duplicate: boolean }).duplicate).sort(),
    ).toEqual([false, true]);
    await processed('gateway-b', event.id).toBe('processed');
  });

  it('sends subscription events to subscription handling, which keeps the subscription record', async () => {
    const account = `usr_${randomUUID()}`;
    const event = gatewayBEvent('customer.subscription.created', {
      id: 'sub_e2e',
      status: 'trialing',
      metadata: { account_id: account },
      items: { data: [{ price: { id: 'price_team' }, current_period_end: 1798761600 }] },
    });

    const answer = await postB(JSON.stringify(event));

    expect(answer.json()).toEqual(ack(event.id, false, 'subscription'));
    await expect
      .poll(() => findSubscription(account, 'sub_e2e'), { timeout: 10_000 })
      .toMatchObject({
        status: 'trialing',
        plan: 'price_team',
        current_period_end: '2027-01-01T00:00:00.000Z',
      });
  });
});

describe('gateway A', () => {
  const paths = [
    '/gateway-a-webhook-listener',
    '/gateway-a-webhook-enhanced',
    '/subscriptions/gateway-a',
  ];

  it.each(paths)('%s accepts the hex HMAC under either active secret', async (path) => {
    const body = JSON.stringify(
      gatewayAPaymentEvent('payment.authorized', { id: `pay_${randomUUID()}` }),
    );
    const eventId = `evt_${randomUUID()}`;

    const withNew = await call(path, body, {
      'x-gateway-a-signature': hexHmac('gateway-a-new', body),
      'x-gateway-a-event-id': eventId,
    });
    const withOld = await call(path, body, {
      'X-Razorpay-Signature': hexHmac('gateway-a-old', body),
      'x-razorpay-event-id': eventId,
    });

    // The dedupe key is the signed body's SHA-256; the claimed id is kept for audit only.
    const bodyKey = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    expect(withNew.json()).toEqual(ack(bodyKey, false, 'general'));
    expect(withOld.json()).toEqual(ack(bodyKey, true, 'general'));
  });

  it('publishes a captured payment for the account in its notes', async () => {
    const body = JSON.stringify(
      gatewayAPaymentEvent('payment.captured', {
        id: 'pay_captured',
        amount: 10050,
        currency: 'INR',
        notes: { account_id: `usr_${randomUUID()}` },
      }),
    );
    const answer = await call('/gateway-a-webhook-listener', body, {
      'x-gateway-a-signature': hexHmac('gateway-a-new', body),
    });
    const eventId = (answer.json().data as { event_id: string }).event_id;
    await processed('gateway-a', eventId).toBe('processed');
    expect((await inboundEventState('gateway-a', eventId))?.result).toBe(
      'published payment.successful',
    );
  });
});

describe('the messaging platform', () => {
  const handshake = (query: string) => call(`/messaging?${query}`, undefined, {}, 'GET');

  it('echoes the raw challenge as text/plain for the configured verify token', async () => {
    const answer = await handshake(
      'hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444',
    );
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^text\/plain/);
    expect(answer.text).toBe('1158201444');
  });

  it('answers 403 for a wrong token or mode, and records it', async () => {
    const wrongToken = await handshake('hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1');
    const wrongMode = await handshake(
      'hub.mode=unsubscribe&hub.verify_token=verify-me&hub.challenge=1',
    );
    expect([wrongToken.status, wrongMode.status]).toEqual([403, 403]);
    expect(wrongToken.json()).toMatchObject({ success: false, error: { code: 'forbidden' } });
    const outcomes = (await attemptsOf('messaging')).map((attempt) => attempt.outcome);
    expect(outcomes.filter((outcome) => outcome === 'forbidden')).toHaveLength(2);
    expect(outcomes).toContain('verified');
  });

  it('acknowledges a signed notification and records its messages and statuses', async () => {
    const messageId = `wamid.${randomUUID()}`;
    const sentId = `wamid.${randomUUID()}`;
    const body = JSON.stringify(messagingNotification(messageId, sentId));

    const answer = await call('/messaging', body, {
      'x-hub-signature-256': `sha256=${hexHmac('messaging-app-secret', body)}`,
    });

    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({
      success: true,
      data: { received: true, duplicate: false },
    });
    await expect
      .poll(() => findMessagingRecord(keys.messagingMessage(messageId)), { timeout: 10_000 })
      .toMatchObject({ text: 'Does it come in another colour?' });
    // One BatchWrite holds both, but it is not atomic: a read may fall between its items.
    await expect
      .poll(() => findMessagingRecord(keys.messagingStatus(sentId, 'delivered')), {
        timeout: 10_000,
      })
      .toBeDefined();
  });
});

describe('the receivers in the OpenAPI document', () => {
  /** A signed request each receiver accepts, as its sender makes it (every header it reads). */
  const signedCalls: Record<string, () => Promise<Answer>> = {
    ...Object.fromEntries(
      [
        ['handleGatewayAWebhook', '/gateway-a-webhook-listener'],
        ['handleGatewayAWebhookEnhanced', '/gateway-a-webhook-enhanced'],
        ['handleGatewayASubscriptionWebhook', '/subscriptions/gateway-a'],
      ].map(([name, path]) => [
        name,
        () => {
          const body = JSON.stringify(
            gatewayAPaymentEvent('payment.authorized', { id: `pay_${randomUUID()}` }),
          );
          return call(path!, body, {
            'x-gateway-a-signature': hexHmac('gateway-a-new', body),
            'x-gateway-a-event-id': `evt_${randomUUID()}`,
          });
        },
      ]),
    ),
    handleGatewayBWebhook: () => {
      const body = JSON.stringify(gatewayBEvent('customer.created', { id: 'cus_doc' }));
      return call('/gateway-b-webhook', body, {
        'gateway-b-signature': gatewayBHeader(body, Date.now(), 'whsec_b_new'),
      });
    },
    messagingWebhookVerification: () =>
      call(
        '/messaging?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=42',
        undefined,
        {},
        'GET',
      ),
    messagingWebhookNotification: () => {
      const body = JSON.stringify(messagingNotification(`wamid.${randomUUID()}`, 'wamid.doc'));
      return call('/messaging', body, {
        'x-hub-signature-256': `sha256=${hexHmac('messaging-app-secret', body)}`,
      });
    },
  };

  it('takes a signed request at every receiver, carrying nothing the document does not declare', async () => {
    const receivers = operations
      .filter((route) => route.surface === 'function-url')
      .map((route) => route.name);
    expect(Object.keys(signedCalls).sort()).toEqual([...receivers].sort());

    for (const name of receivers) {
      // call() holds the request to the document too: every query parameter, header and body.
      expect((await signedCalls[name]!()).status, name).toBe(200);
    }
  });
});

describe('bad input: a 4xx, recorded, never a 5xx', () => {
  const body = JSON.stringify(gatewayBEvent('customer.updated', { id: 'cus_bad' }));

  it.each([
    ['no signature header', {}],
    ['an empty header', { 'stripe-signature': '' }],
    ['a garbled header', { 'stripe-signature': 't=,v1=%%%' }],
    [
      'a header for another body',
      { 'stripe-signature': gatewayBHeader('{}', Date.now(), 'whsec_b_new') },
    ],
  ])('answers 401 invalid_signature to %s', async (_case, headers: Record<string, string>) => {
    const answer = await call('/gateway-b-webhook', body, headers);
    expect(answer.status).toBe(401);
    expect(answer.json()).toEqual({
      success: false,
      error: { code: 'invalid_signature', message: expect.any(String), details: [] },
    });
  });

  it('answers 400 to a validly signed body that is not JSON', async () => {
    const text = 'id=evt_1&type=invoice.paid';
    const answer = await call('/gateway-a-webhook-listener', text, {
      'content-type': 'text/plain',
      'x-gateway-a-signature': hexHmac('gateway-a-new', text),
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('answers 413 to a body over 1 MiB', async () => {
    const large = `{"pad":"${'x'.repeat(1024 * 1024)}"}`;
    const answer = await call('/messaging', large, { 'x-hub-signature-256': 'sha256=00' });
    expect(answer.status).toBe(413);
    expect(answer.json()).toMatchObject({ error: { code: 'payload_too_large' } });
  });

  it('answers 404 to a method the receiver does not serve', async () => {
    expect((await call('/gateway-b-webhook', undefined, {}, 'GET')).status).toBe(404);
    expect((await call('/messaging', '{}', {}, 'PUT')).status).toBe(404);
  });

  it('records every refused call with its outcome', async () => {
    const outcomes = new Set([
      ...(await attemptsOf('gateway-b')).map((attempt) => attempt.outcome),
      ...(await attemptsOf('gateway-a')).map((attempt) => attempt.outcome),
      ...(await attemptsOf('messaging')).map((attempt) => attempt.outcome),
    ]);
    for (const outcome of ['invalid_signature', 'malformed', 'too_large', 'wrong_method']) {
      expect(outcomes, outcome).toContain(outcome);
    }
  });
});
