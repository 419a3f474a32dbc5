import { randomUUID } from 'node:crypto';
import { validate } from '@readme/openapi-parser';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, bearer, dataOf, successOf } from '../../shared/http/client/api-client.js';
import type { operations } from '../../shared/http/client/api-types.js';
import { eventually } from '../support/eventually.js';
import type { AccountClient } from './accounts-support.js';
import type { TestReceiver } from './webhooks-receiver.js';
import {
  order,
  standardHeaders,
  startWebhookService,
  verifiesByDocumentRule,
  type WebhookOwner,
  webhookOwner,
} from './webhooks-support.js';

let client: AccountClient;
let api: ApiClient;
let receiver: TestReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, receiver, stop } = await startWebhookService({
    WEBHOOK_RETRY_DELAYS: '0,1,1,1,1',
    WEBHOOK_ENDPOINTS_PER_ACCOUNT: '3',
  }));
  ({ api } = client);
}, 120_000);

afterAll(async () => {
  await stop?.();
});

const outbox = (to: string) => client.outbox(to);
const signUp = () => webhookOwner(client);

type Publication = operations['publishEvent']['requestBody']['content']['application/json'];
type DeliveryFilters = operations['listWebhookDeliveries']['parameters']['query'];

const publish = (body: Publication, headers: Record<string, string> = {}) =>
  api.POST('/events', { body, headers });

/** Registers an endpoint of `owner` at `path` of the test receiver; answers it with its secret. */
const register = (owner: WebhookOwner, path: string, events: Publication['type'][]) =>
  dataOf(
    api.POST('/webhooks', {
      headers: bearer(owner.token),
      body: { url: `${receiver.origin}${path}`, events },
    }),
  );

const deliveries = (owner: WebhookOwner, id: string, query: DeliveryFilters = {}) =>
  successOf(
    api.GET('/webhooks/{id}/deliveries', {
      params: { path: { id }, query },
      headers: bearer(owner.token),
    }),
  );

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
    const published = await publish({
      type: 'order.created',
      account_id: `usr_${randomUUID().slice(0, 8)}`,
      data: order,
    });
    expect(published.response.status).toBe(201);
    expect(published.data?.data).toEqual({
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
    const body: Publication = { type: 'order.updated', account_id: account, data: order };
    const first = await publish(body, headers);
    const second = await publish(body, headers);
    const changed = await publish({ ...body, data: { ...order, status: 'shipped' } }, headers);
    expect(second.data?.data.id).toBe(first.data?.data.id);
    expect(changed.response.status).toBe(409);
    expect(changed.error?.error.code).toBe('conflict');
  });

  it('refuses an unknown event type and unknown fields with 400', async () => {
    const answer = await client.call('POST', '/events', {
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
    const registered = await api.POST('/webhooks', {
      headers: bearer(owner.token),
      body: { url: `${receiver.origin}/ok-verify`, events: ['order.created', 'payment.failed'] },
    });
    expect(registered.response.status).toBe(201);
    const endpoint = registered.data!.data;
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: `${receiver.origin}/ok-verify`,
      events: ['order.created', 'payment.failed'],
      description: '',
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      rate_limit: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });

    const published = await dataOf(
      publish({ type: 'order.created', account_id: owner.userId, data: order }),
    );
    expect(published.delivery_count).toBe(1);

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
    expect(verified).toEqual({ ...published, delivery_count: undefined, data: order });
    expect(request?.body).toBe(
      JSON.stringify({
        id: published.id,
        type: 'order.created',
        created_at: published.created_at,
        data: order,
      }),
    );
    expect(request?.headers['webhook-id']).toBe(published.id);
    expect(request?.headers['content-type']).toBe('application/json');

    const delivered = await eventually(async () => {
      const list = await deliveries(owner, endpoint.id);
      return list.data[0]?.status === 'delivered' ? list : undefined;
    });
    expect(delivered.meta).toEqual({ page: 1, per_page: 20, total: 1, next_cursor: null });
    expect(delivered.data[0]).toMatchObject({
      event_id: published.id,
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

  it('tries a failing receiver exactly 5 times, and marks the delivery failed, with no email per delivery', async () => {
    const owner = await signUp();
    const endpoint = await register(owner, '/fail-ladder', ['payment.failed']);
    await dataOf(publish({ type: 'payment.failed', account_id: owner.userId, data: payment }));

    const failed = await eventually(async () => {
      const [delivery] = (await deliveries(owner, endpoint.id, { status: 'failed' })).data;
      return delivery;
    }, 45);
    expect(failed.attempts_made).toBe(5);
    expect(failed.attempts[4]).toMatchObject({
      attempt: 5,
      outcome: 'failed',
      response_status: 500,
      response_body: 'receiver is down',
    });
    expect(receiver.to('/fail-ladder')).toHaveLength(5);
    // No email per failed delivery: the owner hears once a day, per endpoint.
    expect(
      (await outbox(owner.email)).filter((mail) => mail.subject?.startsWith('Webhook deliver')),
    ).toEqual([]);

    // A manual retry is one more attempt, not counted in the digest again.
    const retried = await api.POST('/webhooks/{id}/deliveries/{delivery_id}/retry', {
      params: { path: { id: endpoint.id, delivery_id: failed.id } },
      headers: bearer(owner.token),
    });
    expect(retried.response.status).toBe(200);
    await eventually(async () => (receiver.to('/fail-ladder').length === 6 ? true : undefined));

    // The digest itself, sent once the UTC day is over, is in webhooks-ladder.test.ts: moving
    // the clock a day here would date every later signature in this file in the future.
  });

  it('counts a redirect as a failed attempt and does not follow it', async () => {
    const owner = await signUp();
    const endpoint = await register(owner, '/redirect-me', ['order.cancelled']);
    await dataOf(publish({ type: 'order.cancelled', account_id: owner.userId, data: order }));
    const first = await eventually(
      async () => (await deliveries(owner, endpoint.id)).data[0]?.attempts[0],
    );
    expect(first).toMatchObject({ response_status: 302, outcome: 'failed' });
    expect(first.error).toMatch(/redirect not followed/);
    expect(receiver.to('/ok')).toHaveLength(0);
  });

  it('gives up on a receiver that does not answer within 10 seconds', async () => {
    const owner = await signUp();
    const endpoint = await register(owner, '/hang', ['delivery.in_transit']);
    await dataOf(
      publish({ type: 'delivery.in_transit', account_id: owner.userId, data: inTransit }),
    );
    const first = await eventually(
      async () => (await deliveries(owner, endpoint.id)).data[0]?.attempts[0],
      25,
    );
    expect(first).toMatchObject({ outcome: 'failed', response_status: null });
    expect(first.error).toMatch(/within 10 s/);
    expect(first.latency_ms).toBeGreaterThanOrEqual(10_000);
    expect(first.latency_ms).toBeLessThan(12_000);
    // The endpoint goes away so the rest of the ladder does not keep hanging connections open.
    await dataOf(
      api.DELETE('/webhooks/{id}', {
        params: { path: { id: endpoint.id } },
        headers: bearer(owner.token),
      }),
    );
  }, 40_000);

  it('refuses http, metadata and unresolvable URLs at registration', async () => {
    const owner = await signUp();
    for (const url of [
      'http://127.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::ffff:169.254.169.254]/',
      'https://no-such-host.invalid/hook',
    ]) {
      const answer = await api.POST('/webhooks', {
        headers: bearer(owner.token),
        body: { url, events: ['order.created'] },
      });
      expect(answer.response.status, url).toBe(400);
      expect(answer.error?.error.details[0]?.field, url).toBe('url');
    }
  });

  it('manages endpoints: list, get, rotate (the document’s signature with the new secret, Standard Webhooks with both), test event, delete', async () => {
    const owner = await signUp();
    const stranger = await signUp();
    const first = await register(owner, '/ok-a', ['delivery.assigned']);
    const second = await register(owner, '/ok-b', ['delivery.assigned']);
    const ofOwner = (id: string) => ({ params: { path: { id } }, headers: bearer(owner.token) });

    const page = await successOf(
      api.GET('/webhooks', {
        params: { query: { per_page: 1, page: 2 } },
        headers: bearer(owner.token),
      }),
    );
    expect(page.meta).toEqual({ page: 2, per_page: 1, total: 2, next_cursor: null });
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).not.toHaveProperty('secret');

    const got = await dataOf(api.GET('/webhooks/{id}', ofOwner(first.id)));
    expect(got).toEqual({ ...first, secret: undefined });
    const foreign = await api.GET('/webhooks/{id}', {
      params: { path: { id: first.id } },
      headers: bearer(stranger.token),
    });
    expect(foreign.response.status).toBe(404);
    const anonymous = await api.GET('/webhooks/{id}', { params: { path: { id: first.id } } });
    expect(anonymous.response.status).toBe(401);

    const rotated = await dataOf(api.POST('/webhooks/{id}/rotate-secret', ofOwner(first.id)));
    expect(rotated.secret).not.toBe(first.secret);
    const tested = await dataOf(api.POST('/webhooks/{id}/test', ofOwner(first.id)));
    expect(tested.event.type).toBe('webhook.test');
    const [testRequest] = await eventually(async () =>
      receiver.to('/ok-a').length > 0 ? receiver.to('/ok-a') : undefined,
    );
    // During the overlap: a receiver written to the interface document (one hex HMAC, compared
    // whole) verifies with the new secret; Standard Webhooks receivers with either.
    if (testRequest === undefined) throw new Error('no test event received');
    expect(verifiesByDocumentRule(rotated.secret, testRequest)).toBe(true);
    const headers = standardHeaders(testRequest);
    expect(new Webhook(rotated.secret).verify(testRequest.body, headers)).toBeTruthy();
    expect(new Webhook(first.secret).verify(testRequest.body, headers)).toBeTruthy();
    expect(testRequest.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(receiver.to('/ok-b')).toHaveLength(0);

    const deleted = await api.DELETE('/webhooks/{id}', ofOwner(second.id));
    expect(deleted.response.status).toBe(200);
    expect((await api.GET('/webhooks/{id}', ofOwner(second.id))).response.status).toBe(404);
    const again = await api.DELETE('/webhooks/{id}', ofOwner(second.id));
    expect(again.response.status).toBe(404);
    const remaining = await dataOf(api.GET('/webhooks', { headers: bearer(owner.token) }));
    expect(remaining.map((endpoint) => endpoint.id)).toEqual([first.id]);
  });

  it('refuses a fourth endpoint with 409 while the account has the 3 allowed, until one is deleted', async () => {
    const owner = await signUp();
    const registerNext = (index: number) =>
      api.POST('/webhooks', {
        headers: bearer(owner.token),
        body: { url: `${receiver.origin}/ok-cap-${index}`, events: ['order.created'] },
      });
    const created = [];
    for (const index of [0, 1, 2]) created.push(await dataOf(registerNext(index)));

    const refused = await registerNext(3);
    expect(refused.response.status).toBe(409);
    expect(refused.error?.error).toMatchObject({
      code: 'conflict',
      message: 'An account can have at most 3 webhook endpoints; delete one to register another',
    });

    await dataOf(
      api.DELETE('/webhooks/{id}', {
        params: { path: { id: created[0]!.id } },
        headers: bearer(owner.token),
      }),
    );
    expect((await registerNext(4)).response.status).toBe(201);
    const listed = await successOf(api.GET('/webhooks', { headers: bearer(owner.token) }));
    expect(listed.meta.total).toBe(3);
  });

  it('refuses registration without a token and with bad input', async () => {
    const anonymous = await api.POST('/webhooks', {
      body: { url: 'https://a.example', events: ['order.created'] },
    });
    expect(anonymous.response.status).toBe(401);
    const owner = await signUp();
    const answer = await client.call('POST', '/webhooks', {
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
    const endpoint = await register(owner, '/ok-malformed', ['order.created']);
    const malformed = {
      order_id: 42,
      status: '',
      total: 'abc',
      currency: 'eur',
    };
    const answers = [
      await publish({ type: 'order.created', account_id: owner.userId, data: malformed }),
      await publish({
        type: 'order.created',
        account_id: owner.userId,
        data: { note: 'no order' },
      }),
    ];

    expect(answers.map((answer) => answer.response.status)).toEqual([400, 400]);
    const sentences = [
      'data.order_id must be a string',
      'data.status must not be empty',
      'data.total must be a number: a decimal amount such as 19.99',
      'data.currency must be an ISO 4217 currency code: three upper-case letters, e.g. EUR',
    ];
    expect(answers[0]?.error?.error).toEqual({
      code: 'invalid_request',
      message: `The event data does not fit order.created (GET /v1/event-types): ${sentences.join('; ')}`,
      details: sentences.map((message) => ({ field: message.split(' ')[0], message })),
    });
    expect(answers[1]?.error?.error.details).toEqual(
      ['order_id', 'status', 'total', 'currency'].map((field) => ({
        field: `data.${field}`,
        message: `data.${field} is required`,
      })),
    );
    expect((await deliveries(owner, endpoint.id)).meta.total).toBe(0);
  });

  it('lists every event type publicly, and each example is a publication the service accepts', async () => {
    const listed = await successOf(api.GET('/event-types'));
    expect(listed.meta).toEqual({ page: 1, per_page: 20, total: 11, next_cursor: null });
    const account = `usr_${randomUUID().slice(0, 8)}`;
    for (const entry of listed.data) {
      expect(Object.keys(entry).sort()).toEqual(['description', 'example', 'schema', 'type']);
      expect(entry.schema.properties).toMatchObject({ type: { const: entry.type } });
      const published = await publish({
        type: entry.type,
        account_id: account,
        data: entry.example.data,
      });
      expect(published.response.status, entry.type).toBe(201);
    }
  });

  it('takes the parameters every list takes, checked as on every list', async () => {
    const list = (query: string) => client.call('GET', `/event-types?${query}`);

    const filtered = await list(
      'page=2&per_page=5&status=active&created_after=2020-01-01&created_before=2030-01-31T00:00:00Z',
    );
    const wrongStatus = await list('status=enabled');
    const impossibleDate = await list('created_after=2026-02-30');
    const emptyWindow = await list('created_after=2030-01-01&created_before=2020-01-01');

    expect(filtered.status).toBe(200);
    expect(filtered.body.meta).toEqual({
      page: 2,
      per_page: 5,
      total: 11,
      next_cursor: expect.any(String),
    });
    expect(filtered.body.data.map((entry: { type: string }) => entry.type)).toEqual([
      'delivery.picked_up',
      'delivery.in_transit',
      'delivery.completed',
      'payment.successful',
      'payment.failed',
    ]);
    expect(wrongStatus.status).toBe(400);
    expect(wrongStatus.body.error.details).toEqual([
      { field: 'status', message: 'status must be one of: active' },
    ]);
    expect(impossibleDate.status).toBe(400);
    expect(impossibleDate.body.error.details).toEqual([
      { field: 'created_after', message: expect.any(String) },
    ]);
    expect(emptyWindow.status).toBe(400);
    expect(emptyWindow.body.error.details).toEqual([
      { field: 'created_after', message: 'created_after must be before created_before' },
    ]);
  });

  it('serves an OpenAPI document that validates, webhooks section included', async () => {
    const document = (await successOf(api.GET('/openapi.json'))) as {
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
    const endpoint = await register(owner, '/fail-recover', ['order.created']);
    for (const orderId of ['ord_r1', 'ord_r2']) {
      await dataOf(
        publish({
          type: 'order.created',
          account_id: owner.userId,
          data: { ...order, order_id: orderId },
        }),
      );
    }
    const failed = await eventually(async () => {
      const list = await deliveries(owner, endpoint.id, { status: 'failed' });
      return list.meta.total === 2 ? list.data : undefined;
    }, 60);
    const day = failed[0]!.created_at.slice(0, 10);
    await dataOf(
      api.PATCH('/webhooks/{id}', {
        params: { path: { id: endpoint.id } },
        headers: bearer(owner.token),
        body: { url: `${receiver.origin}/ok-recover` },
      }),
    );

    type Window = operations['recoverWebhook']['requestBody']['content']['application/json'];
    const recover = (body: Window, token = owner.token) =>
      api.POST('/webhooks/{id}/recover', {
        params: { path: { id: endpoint.id } },
        headers: bearer(token),
        body,
      });
    const first = await recover({ since: day });
    const second = await recover({ since: day });

    expect(first.response.status).toBe(202);
    expect(first.data?.data).toEqual({ recovered: 2, has_more: false });
    expect(second.data?.data).toEqual({ recovered: 0, has_more: false });
    const delivered = await eventually(async () => {
      const list = await deliveries(owner, endpoint.id, { status: 'delivered' });
      return list.meta.total === 2 ? list.data : undefined;
    });
    expect(delivered.map((delivery) => delivery.attempts_made)).toEqual([6, 6]);
    expect(receiver.to('/ok-recover')).toHaveLength(2);
    expect((await recover({ since: day }, stranger.token)).response.status).toBe(404);
    const backwards = await recover({ since: `${day}T12:00:00Z`, until: `${day}T06:00:00+00:00` });
    expect(backwards.response.status).toBe(400);
    expect(backwards.error?.error.details).toEqual([
      { field: 'since', message: `since must be before until (${day}T06:00:00.000Z)` },
    ]);
    const bad = await client.call('POST', `/webhooks/${endpoint.id}/recover`, {
      token: owner.token,
      body: { since: 'yesterday', extra: true },
    });
    expect(bad.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([
      'since',
      'extra',
    ]);
  });

  it('shows one delivery with its attempts and event, and filters the list', async () => {
    const owner = await signUp();
    const endpoint = await register(owner, '/ok-filters', ['order.created', 'payment.failed']);
    const payment = {
      payment_id: 'pay_f1',
      status: 'failed',
      amount: 5,
      currency: 'EUR',
    };
    const orderEvent = await dataOf(
      publish({ type: 'order.created', account_id: owner.userId, data: order }),
    );
    await dataOf(publish({ type: 'payment.failed', account_id: owner.userId, data: payment }));
    const list = (query: DeliveryFilters) => deliveries(owner, endpoint.id, query);
    await eventually(async () =>
      (await list({ status: 'delivered' })).meta.total === 2 ? true : undefined,
    );
    const day = orderEvent.created_at.slice(0, 10);

    expect(
      (await list({ event_type: 'payment.failed' })).data.map((delivery) => delivery.event_type),
    ).toEqual(['payment.failed']);
    expect((await list({ created_after: day, status: 'delivered' })).meta.total).toBe(2);
    expect((await list({ created_before: '2000-01-01' })).meta.total).toBe(0);
    // The typed client percent-encodes the offset's `+`.
    expect((await list({ created_after: `${day}T00:00:00+14:00` })).meta.total).toBe(2);
    const refused = await client.call(
      'GET',
      `/webhooks/${endpoint.id}/deliveries?event_type=order.shipped&created_after=2026-02-30&per_page=101`,
      { token: owner.token },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([
      'per_page',
      'event_type',
      'created_after',
    ]);
    const firstPage = await list({ per_page: 1 });
    const nextPage = await list({ per_page: 1, cursor: firstPage.meta.next_cursor ?? '' });
    expect(firstPage.meta).toMatchObject({ page: 1, total: 2, next_cursor: expect.any(String) });
    expect(nextPage.meta).toMatchObject({ page: 2, total: 2, next_cursor: null });
    expect(nextPage.data[0]?.id).not.toBe(firstPage.data[0]?.id);
    for (const cursor of ['not-base64!', 'eyJrIjp7fX0', Buffer.from('{').toString('base64url')]) {
      const forged = await client.call(
        'GET',
        `/webhooks/${endpoint.id}/deliveries?cursor=${encodeURIComponent(cursor)}`,
        { token: owner.token },
      );
      expect(forged.status, cursor).toBe(400);
      expect(forged.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([
        'cursor',
      ]);
    }

    const [orderDelivery] = (await list({ event_type: 'order.created' })).data;
    const one = (token: string) =>
      api.GET('/webhooks/{id}/deliveries/{delivery_id}', {
        params: { path: { id: endpoint.id, delivery_id: orderDelivery!.id } },
        headers: bearer(token),
      });
    const read = await one(owner.token);
    expect(read.response.status).toBe(200);
    expect(read.data?.data).toEqual({
      ...orderDelivery,
      event: {
        id: orderEvent.id,
        type: 'order.created',
        created_at: orderEvent.created_at,
        data: order,
      },
    });
    const stranger = await signUp();
    expect((await one(stranger.token)).response.status).toBe(404);
  });

  it('records what each attempt sent and got back, finds a delivery by its event id, and resends a delivered one', async () => {
    const owner = await signUp();
    const endpoint = await register(owner, '/fail-headers', ['order.created']);
    const other = await register(owner, '/ok-other', ['order.created']);
    const event = await dataOf(
      publish({ type: 'order.created', account_id: owner.userId, data: order }),
    );
    const byEvent = (token: string, id = event.id) =>
      api.GET('/webhooks/{id}/deliveries/{delivery_id}', {
        params: { path: { id: endpoint.id, delivery_id: id } },
        headers: bearer(token),
      });
    const read = await eventually(async () => {
      const { data } = await byEvent(owner.token);
      return data !== undefined && data.data.attempts.length > 0 ? data.data : undefined;
    });
    expect(read.event_id).toBe(event.id);
    const [received] = receiver.to('/fail-headers');
    const [attempt] = read.attempts;
    // The headers as the receiver got them (signatures are HMACs: no secret is shown).
    expect(attempt?.request_headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'account-service-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': received?.headers['webhook-timestamp'],
      'webhook-signature': received?.headers['webhook-signature'],
      'x-service-signature': received?.headers['x-service-signature'],
    });
    expect(JSON.stringify(attempt)).not.toContain(endpoint.secret.slice('whsec_'.length));
    // Both the response (status, headers, body) and the error.
    expect(attempt).toMatchObject({
      response_status: 500,
      response_headers: { 'content-type': 'text/plain' },
      response_body: 'receiver is down',
      error: 'the endpoint answered HTTP 500',
    });
    // An id that is no event of this endpoint's, or another account's look-up, finds nothing.
    expect((await byEvent(owner.token, other.id.replace('whk_', 'evt_'))).response.status).toBe(
      404,
    );
    const stranger = await signUp();
    expect((await byEvent(stranger.token)).response.status).toBe(404);

    // A delivered delivery can be sent again (Resend): one more attempt, same webhook-id.
    const delivered = await eventually(async () => {
      const [first] = (await deliveries(owner, other.id, { status: 'delivered' })).data;
      return first;
    });
    const resent = await api.POST('/webhooks/{id}/deliveries/{delivery_id}/retry', {
      params: { path: { id: other.id, delivery_id: delivered.id } },
      headers: bearer(owner.token),
    });
    expect(resent.response.status).toBe(200);
    const twice = await eventually(async () =>
      receiver.to('/ok-other').length === 2 ? receiver.to('/ok-other') : undefined,
    );
    expect(twice.map((request) => request.headers['webhook-id'])).toEqual([event.id, event.id]);
  });

  it('sends the example of a subscribed type on request, and refuses a type the endpoint does not take', async () => {
    const owner = await signUp();
    const endpoint = await register(owner, '/ok-example', ['payment.refunded']);
    const example = (event_type: Publication['type'], token = owner.token) =>
      api.POST('/webhooks/{id}/test', {
        params: { path: { id: endpoint.id }, query: { event_type } },
        headers: bearer(token),
      });
    const sent = await example('payment.refunded');
    expect(sent.response.status).toBe(200);
    const catalogue = await dataOf(
      api.GET('/event-types', { params: { query: { per_page: 100 } } }),
    );
    const refund = catalogue.find((type) => type.type === 'payment.refunded');
    expect(sent.data?.data.event).toMatchObject({
      type: 'payment.refunded',
      data: refund?.example.data,
    });
    const [request] = await eventually(async () =>
      receiver.to('/ok-example').length > 0 ? receiver.to('/ok-example') : undefined,
    );
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'payment.refunded' });
    expect(
      new Webhook(endpoint.secret).verify(request!.body, standardHeaders(request!)),
    ).toBeTruthy();

    const unsubscribed = await example('order.created');
    expect(unsubscribed.response.status).toBe(400);
    expect(unsubscribed.error?.error.details?.[0]?.field).toBe('event_type');
    const stranger = await signUp();
    expect((await example('payment.refunded', stranger.token)).response.status).toBe(404);
    expect(receiver.to('/ok-example')).toHaveLength(1);
  });
});
