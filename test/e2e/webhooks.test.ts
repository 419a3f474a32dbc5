import { randomUUID } from 'node:crypto';
import { validate } from '@readme/openapi-parser';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import type { AccountClient } from './accounts-support.js';
import type { TestReceiver } from './webhooks-receiver.js';
import {
  order,
  standardHeaders,
  startWebhookService,
  verifiesByDocumentRule,
  webhookOwner,
} from './webhooks-support.js';

let client: AccountClient;
let receiver: TestReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, receiver, stop } = await startWebhookService({
    WEBHOOK_RETRY_DELAYS: '0,1,1,1,1',
    WEBHOOK_ENDPOINTS_PER_ACCOUNT: '3',
  }));
}, 120_000);

afterAll(async () => {
  await stop?.();
});

const call = (...args: Parameters<AccountClient['call']>) => client.call(...args);
const outbox = (to: string) => client.outbox(to);
const signUp = () => webhookOwner(client);

const payment = {
  payment_id: 'pay_1',
  order_id: 'ord_42',
  status: 'failed',
  amount: 19.99,
  currency: 'EUR',
};
const inTransit = { delivery_id: 'dlv_1', order_id: 'ord_42', status: 'in_transit' };

// Generous limits: the 2-core machine is shared with DynamoDB Local and other test files.
describe('publishing events (POST /v1/events, open locally)', { timeout: 60_000 }, () => {
  it('stores an event for an account without endpoints and answers 201 with the event object', async () => {
    const published = await call('POST', '/events', {
      body: { type: 'order.created', account_id: `usr_${randomUUID().slice(0, 8)}`, data: order },
    });
    expect(published.status).toBe(201);
    expect(published.body.data).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'order.created',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: order,
      delivery_count: 0,
    });
  });

  it('answers a repeated Idempotency-Key with the same event, and a changed body with 409', async () => {
    const account = `usr_${randomUUID().slice(0, 8)}`;
    const headers = { 'idempotency-key': `order-${randomUUID()}` };
    const body = { type: 'order.updated', account_id: account, data: order };
    const first = await call('POST', '/events', { body, headers });
    const second = await call('POST', '/events', { body, headers });
    const changed = await call('POST', '/events', {
      body: { ...body, data: { ...order, status: 'shipped' } },
      headers,
    });
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('conflict');
  });

  it('refuses an unknown event type and unknown fields with 400', async () => {
    const answer = await call('POST', '/events', {
      body: { type: 'order.shipped', account_id: 'usr_1', data: {}, extra: 1 },
    });
    expect(answer.status).toBe(400);
    expect(
      answer.body.error.details.map((detail: { field: string }) => detail.field).sort(),
    ).toEqual(['extra', 'type']);
  });
});

describe('outbound webhooks end to end', { timeout: 60_000 }, () => {
  it('delivers a published event to the HTTPS receiver, verifiable with standardwebhooks and by hand', async () => {
    const owner = await signUp();
    const registered = await call('POST', '/webhooks', {
      token: owner.token,
      body: { url: `${receiver.origin}/ok-verify`, events: ['order.created', 'payment.failed'] },
    });
    expect(registered.status).toBe(201);
    const endpoint = registered.body.data;
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: `${receiver.origin}/ok-verify`,
      events: ['order.created', 'payment.failed'],
      description: '',
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });

    const published = await call('POST', '/events', {
      body: { type: 'order.created', account_id: owner.userId, data: order },
    });
    expect(published.body.data.delivery_count).toBe(1);

    const [request] = await eventually(async () =>
      receiver.to('/ok-verify').length > 0 ? receiver.to('/ok-verify') : undefined,
    );
    // By hand: hex HMAC-SHA256 of the raw body keyed with the secret string, constant-time compare.
    expect(request && verifiesByDocumentRule(endpoint.secret, request)).toBe(true);
    // With the Standard Webhooks library.
    const verified = new Webhook(endpoint.secret).verify(
      request?.body ?? '',
      standardHeaders(request ?? { headers: {} }),
    );
    expect(verified).toEqual({ ...published.body.data, delivery_count: undefined, data: order });
    expect(request?.body).toBe(
      JSON.stringify({
        id: published.body.data.id,
        type: 'order.created',
        created_at: published.body.data.created_at,
        data: order,
      }),
    );
    expect(request?.headers['webhook-id']).toBe(published.body.data.id);
    expect(request?.headers['content-type']).toBe('application/json');

    const deliveries = await eventually(async () => {
      const list = await call('GET', `/webhooks/${endpoint.id}/deliveries`, { token: owner.token });
      return list.body.data[0]?.status === 'delivered' ? list : undefined;
    });
    expect(deliveries.body.meta).toEqual({ page: 1, per_page: 20, total: 1 });
    expect(deliveries.body.data[0]).toMatchObject({
      event_id: published.body.data.id,
      event_type: 'order.created',
      status: 'delivered',
      attempts_made: 1,
      attempts: [
        {
          attempt: 1,
          outcome: 'succeeded',
          response_status: 200,
          response_body: '{"ok":true}',
          error: null,
          latency_ms: expect.any(Number),
        },
      ],
    });
  });

  it('tries a failing receiver exactly 5 times, then marks the delivery failed and emails the owner', async () => {
    const owner = await signUp();
    const registered = await call('POST', '/webhooks', {
      token: owner.token,
      body: { url: `${receiver.origin}/fail-ladder`, events: ['payment.failed'] },
    });
    const endpoint = registered.body.data;
    await call('POST', '/events', {
      body: { type: 'payment.failed', account_id: owner.userId, data: payment },
    });

    const notice = await eventually(async () => {
      const mails = await outbox(owner.email);
      return mails.find((mail) => mail.subject?.startsWith('Webhook delivery failed'));
    }, 45);
    expect(notice.text).toContain(`${receiver.origin}/fail-ladder`);

    const list = await call('GET', `/webhooks/${endpoint.id}/deliveries?status=failed`, {
      token: owner.token,
    });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].attempts_made).toBe(5);
    expect(list.body.data[0].attempts[4]).toMatchObject({
      attempt: 5,
      outcome: 'failed',
      response_status: 500,
      response_body: 'receiver is down',
    });
    // Give a stray redelivery a moment to show up: there must be none.
    await new Promise((resume) => setTimeout(resume, 1500));
    expect(receiver.to('/fail-ladder')).toHaveLength(5);

    // A manual retry is one more attempt, and no second notice.
    const retried = await call(
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${list.body.data[0].id}/retry`,
      { token: owner.token },
    );
    expect(retried.status).toBe(200);
    await eventually(async () => (receiver.to('/fail-ladder').length === 6 ? true : undefined));
  });

  it('counts a redirect as a failed attempt and does not follow it', async () => {
    const owner = await signUp();
    const endpoint = (
      await call('POST', '/webhooks', {
        token: owner.token,
        body: { url: `${receiver.origin}/redirect-me`, events: ['order.cancelled'] },
      })
    ).body.data;
    await call('POST', '/events', {
      body: { type: 'order.cancelled', account_id: owner.userId, data: order },
    });
    const first = await eventually(async () => {
      const list = await call('GET', `/webhooks/${endpoint.id}/deliveries`, { token: owner.token });
      return list.body.data[0]?.attempts[0];
    });
    expect(first).toMatchObject({ response_status: 302, outcome: 'failed' });
    expect(first.error).toMatch(/redirect not followed/);
    expect(receiver.to('/ok')).toHaveLength(0);
  });

  it('gives up on a receiver that does not answer within 10 seconds', async () => {
    const owner = await signUp();
    const endpoint = (
      await call('POST', '/webhooks', {
        token: owner.token,
        body: { url: `${receiver.origin}/hang`, events: ['delivery.in_transit'] },
      })
    ).body.data;
    await call('POST', '/events', {
      body: { type: 'delivery.in_transit', account_id: owner.userId, data: inTransit },
    });
    const first = await eventually(async () => {
      const list = await call('GET', `/webhooks/${endpoint.id}/deliveries`, { token: owner.token });
      return list.body.data[0]?.attempts[0];
    }, 25);
    expect(first).toMatchObject({ outcome: 'failed', response_status: null });
    expect(first.error).toMatch(/within 10 s/);
    expect(first.latency_ms).toBeGreaterThanOrEqual(10_000);
    expect(first.latency_ms).toBeLessThan(12_000);
    // The endpoint goes away so the rest of the ladder does not keep hanging connections open.
    await call('DELETE', `/webhooks/${endpoint.id}`, { token: owner.token });
  }, 40_000);

  it('refuses http, metadata and unresolvable URLs at registration', async () => {
    const owner = await signUp();
    for (const url of [
      'http://127.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::ffff:169.254.169.254]/',
      'https://no-such-host.invalid/hook',
    ]) {
      const answer = await call('POST', '/webhooks', {
        token: owner.token,
        body: { url, events: ['order.created'] },
      });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.details[0].field, url).toBe('url');
    }
  });

  it('manages endpoints: list, get, rotate (the document’s signature with the new secret, Standard Webhooks with both), test event, delete', async () => {
    const owner = await signUp();
    const stranger = await signUp();
    const created = [];
    for (const path of ['/ok-a', '/ok-b']) {
      created.push(
        (
          await call('POST', '/webhooks', {
            token: owner.token,
            body: { url: `${receiver.origin}${path}`, events: ['delivery.assigned'] },
          })
        ).body.data,
      );
    }
    const [first, second] = created;

    const page = await call('GET', '/webhooks?per_page=1&page=2', { token: owner.token });
    expect(page.body.meta).toEqual({ page: 2, per_page: 1, total: 2 });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0].secret).toBeUndefined();

    const got = await call('GET', `/webhooks/${first.id}`, { token: owner.token });
    expect(got.body.data).toEqual({ ...first, secret: undefined });
    expect((await call('GET', `/webhooks/${first.id}`, { token: stranger.token })).status).toBe(
      404,
    );
    expect((await call('GET', `/webhooks/${first.id}`)).status).toBe(401);

    const rotated = await call('POST', `/webhooks/${first.id}/rotate-secret`, {
      token: owner.token,
    });
    expect(rotated.body.data.secret).not.toBe(first.secret);
    const tested = await call('POST', `/webhooks/${first.id}/test`, { token: owner.token });
    expect(tested.body.data.event.type).toBe('webhook.test');
    const [testRequest] = await eventually(async () =>
      receiver.to('/ok-a').length > 0 ? receiver.to('/ok-a') : undefined,
    );
    // During the overlap: a receiver written to the interface document (one hex HMAC, compared
    // whole) verifies with the new secret; Standard Webhooks receivers with either.
    if (testRequest === undefined) throw new Error('no test event received');
    expect(verifiesByDocumentRule(rotated.body.data.secret, testRequest)).toBe(true);
    const headers = standardHeaders(testRequest);
    expect(new Webhook(rotated.body.data.secret).verify(testRequest.body, headers)).toBeTruthy();
    expect(new Webhook(first.secret).verify(testRequest.body, headers)).toBeTruthy();
    expect(testRequest.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(receiver.to('/ok-b')).toHaveLength(0);

    expect((await call('DELETE', `/webhooks/${second.id}`, { token: owner.token })).status).toBe(
      200,
    );
    expect((await call('GET', `/webhooks/${second.id}`, { token: owner.token })).status).toBe(404);
    expect((await call('DELETE', `/webhooks/${second.id}`, { token: owner.token })).status).toBe(
      404,
    );
    const remaining = await call('GET', '/webhooks', { token: owner.token });
    expect(remaining.body.data.map((endpoint: { id: string }) => endpoint.id)).toEqual([first.id]);
  });

  it('refuses a fourth endpoint with 409 while the account has the 3 allowed, until one is deleted', async () => {
    const owner = await signUp();
    const register = (index: number) =>
      call('POST', '/webhooks', {
        token: owner.token,
        body: { url: `${receiver.origin}/ok-cap-${index}`, events: ['order.created'] },
      });
    const created = [];
    for (const index of [0, 1, 2]) created.push((await register(index)).body.data);

    const refused = await register(3);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'conflict',
      message: 'An account can have at most 3 webhook endpoints; delete one to register another',
    });

    await call('DELETE', `/webhooks/${created[0].id}`, { token: owner.token });
    expect((await register(4)).status).toBe(201);
    expect((await call('GET', '/webhooks', { token: owner.token })).body.meta.total).toBe(3);
  });

  it('refuses registration without a token and with bad input', async () => {
    expect(
      (
        await call('POST', '/webhooks', {
          body: { url: 'https://a.example', events: ['order.created'] },
        })
      ).status,
    ).toBe(401);
    const owner = await signUp();
    const answer = await call('POST', '/webhooks', {
      token: owner.token,
      body: { url: 'https://a.example/h', events: ['order.created', 'order.created', 'nope'] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details[0].field).toMatch(/^events/);
  });
});

describe('the event catalogue over HTTP', { timeout: 60_000 }, () => {
  it('refuses a publication with each malformed order field, one detail per field, and stores nothing', async () => {
    const owner = await signUp();
    const endpoint = (
      await call('POST', '/webhooks', {
        token: owner.token,
        body: { url: `${receiver.origin}/ok-malformed`, events: ['order.created'] },
      })
    ).body.data;
    const malformed = {
      order_id: 42,
      status: '',
      total: 'abc',
      currency: 'eur',
    };
    const answers = [
      await call('POST', '/events', {
        body: { type: 'order.created', account_id: owner.userId, data: malformed },
      }),
      await call('POST', '/events', {
        body: { type: 'order.created', account_id: owner.userId, data: { note: 'no order' } },
      }),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([400, 400]);
    const sentences = [
      'data.order_id must be a string',
      'data.status must not be empty',
      'data.total must be a number: a decimal amount such as 19.99',
      'data.currency must be an ISO 4217 currency code: three upper-case letters, e.g. EUR',
    ];
    expect(answers[0]?.body.error).toEqual({
      code: 'invalid_request',
      message: `The event data does not fit order.created (GET /v1/event-types): ${sentences.join('; ')}`,
      details: sentences.map((message) => ({ field: message.split(' ')[0], message })),
    });
    expect(answers[1]?.body.error.details).toEqual(
      ['order_id', 'status', 'total', 'currency'].map((field) => ({
        field: `data.${field}`,
        message: `data.${field} is required`,
      })),
    );
    const deliveries = await call('GET', `/webhooks/${endpoint.id}/deliveries`, {
      token: owner.token,
    });
    expect(deliveries.body.meta.total).toBe(0);
  });

  it('lists every event type publicly, and each example is a publication the service accepts', async () => {
    const listed = await call('GET', '/event-types');
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toEqual({ page: 1, per_page: 20, total: 11 });
    const account = `usr_${randomUUID().slice(0, 8)}`;
    for (const entry of listed.body.data) {
      expect(Object.keys(entry).sort()).toEqual(['description', 'example', 'schema', 'type']);
      expect(entry.schema.properties.type).toEqual({ const: entry.type });
      const published = await call('POST', '/events', {
        body: { type: entry.type, account_id: account, data: entry.example.data },
      });
      expect(published.status, entry.type).toBe(201);
    }
  });

  it('serves an OpenAPI document that validates, webhooks section included', async () => {
    const document = (await call('GET', '/openapi.json')).body as {
      webhooks: Record<string, unknown>;
    };
    expect(Object.keys(document.webhooks)).toContain('payment.refunded');
    const result = await validate(document as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });
});

describe('recovering and reading deliveries', { timeout: 90_000 }, () => {
  it('recovers the failed deliveries of a window once, each with a fresh ladder, after the receiver is fixed', async () => {
    const owner = await signUp();
    const stranger = await signUp();
    const endpoint = (
      await call('POST', '/webhooks', {
        token: owner.token,
        body: { url: `${receiver.origin}/fail-recover`, events: ['order.created'] },
      })
    ).body.data;
    for (const orderId of ['ord_r1', 'ord_r2']) {
      await call('POST', '/events', {
        body: {
          type: 'order.created',
          account_id: owner.userId,
          data: { ...order, order_id: orderId },
        },
      });
    }
    const failed = await eventually(async () => {
      const list = await call('GET', `/webhooks/${endpoint.id}/deliveries?status=failed`, {
        token: owner.token,
      });
      return list.body.meta.total === 2 ? list.body.data : undefined;
    }, 60);
    const day = failed[0].created_at.slice(0, 10);
    await call('PATCH', `/webhooks/${endpoint.id}`, {
      token: owner.token,
      body: { url: `${receiver.origin}/ok-recover` },
    });

    const recover = (body: unknown, token = owner.token, id = endpoint.id) =>
      call('POST', `/webhooks/${id}/recover`, { token, body });
    const first = await recover({ since: day });
    const second = await recover({ since: day });

    expect(first.status).toBe(202);
    expect(first.body.data).toEqual({ recovered: 2, has_more: false });
    expect(second.body.data).toEqual({ recovered: 0, has_more: false });
    const delivered = await eventually(async () => {
      const list = await call('GET', `/webhooks/${endpoint.id}/deliveries?status=delivered`, {
        token: owner.token,
      });
      return list.body.meta.total === 2 ? list.body.data : undefined;
    });
    expect(delivered.map((delivery: { attempts_made: number }) => delivery.attempts_made)).toEqual([
      6, 6,
    ]);
    expect(receiver.to('/ok-recover')).toHaveLength(2);
    expect((await recover({ since: day }, stranger.token)).status).toBe(404);
    const backwards = await recover({ since: `${day}T12:00:00Z`, until: `${day}T06:00:00+00:00` });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.details).toEqual([
      { field: 'since', message: `since must be before until (${day}T06:00:00.000Z)` },
    ]);
    const bad = await recover({ since: 'yesterday', extra: true });
    expect(bad.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([
      'since',
      'extra',
    ]);
  });

  it('shows one delivery with its attempts and event, and filters the list', async () => {
    const owner = await signUp();
    const endpoint = (
      await call('POST', '/webhooks', {
        token: owner.token,
        body: { url: `${receiver.origin}/ok-filters`, events: ['order.created', 'payment.failed'] },
      })
    ).body.data;
    const payment = {
      payment_id: 'pay_f1',
      status: 'failed',
      amount: 5,
      currency: 'EUR',
    };
    const orderEvent = (
      await call('POST', '/events', {
        body: { type: 'order.created', account_id: owner.userId, data: order },
      })
    ).body.data;
    await call('POST', '/events', {
      body: { type: 'payment.failed', account_id: owner.userId, data: payment },
    });
    const list = (query: string) =>
      call('GET', `/webhooks/${endpoint.id}/deliveries${query}`, { token: owner.token });
    await eventually(async () =>
      (await list('?status=delivered')).body.meta.total === 2 ? true : undefined,
    );
    const day = orderEvent.created_at.slice(0, 10);

    expect(
      (await list('?event_type=payment.failed')).body.data.map(
        (d: { event_type: string }) => d.event_type,
      ),
    ).toEqual(['payment.failed']);
    expect((await list(`?created_after=${day}&status=delivered`)).body.meta.total).toBe(2);
    expect((await list('?created_before=2000-01-01')).body.meta.total).toBe(0);
    expect(
      (await list(`?created_after=${encodeURIComponent(`${day}T00:00:00+14:00`)}`)).body.meta.total,
    ).toBe(2);
    const refused = await list('?event_type=order.shipped&created_after=2026-02-30&per_page=101');
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([
      'per_page',
      'event_type',
      'created_after',
    ]);

    const orderDelivery = (await list('?event_type=order.created')).body.data[0];
    const one = await call('GET', `/webhooks/${endpoint.id}/deliveries/${orderDelivery.id}`, {
      token: owner.token,
    });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({
      ...orderDelivery,
      event: {
        id: orderEvent.id,
        type: 'order.created',
        created_at: orderEvent.created_at,
        data: order,
      },
    });
    const stranger = await signUp();
    expect(
      (
        await call('GET', `/webhooks/${endpoint.id}/deliveries/${orderDelivery.id}`, {
          token: stranger.token,
        })
      ).status,
    ).toBe(404);
  });
});
