import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, bearer, successOf } from '../../shared/http/client/api-client.js';
import type { operations } from '../../shared/http/client/api-types.js';
import { eventually } from '../support/eventually.js';
import type { AccountClient } from './accounts-support.js';
import type { TestReceiver } from './webhooks-receiver.js';
import { order, startWebhookService, type WebhookOwner, webhookOwner } from './webhooks-support.js';

/**
 * An endpoint's lifecycle through `npm start`: PATCH, disabling and enabling, and the automatic
 * disabling of a failing endpoint. Retries wait 10 minutes, longer than any test runs, so a
 * retry happens only when a test moves the service's clock past it (the sweeper then sends the
 * overdue delivery): time is moved, never slept through.
 */

let client: AccountClient;
let api: ApiClient;
let receiver: TestReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, receiver, stop } = await startWebhookService({
    WEBHOOK_RETRY_DELAYS: '0,600,600,600,600',
  }));
  ({ api } = client);
}, 120_000);

afterAll(async () => {
  await stop?.();
});

const dayS = 24 * 60 * 60;

async function register(owner: WebhookOwner, path: string) {
  const answer = await api.POST('/webhooks', {
    headers: bearer(owner.token),
    body: { url: `${receiver.origin}${path}`, events: ['order.created', 'order.updated'] },
  });
  expect(answer.response.status).toBe(201);
  return answer.data!.data;
}

const publish = async (owner: WebhookOwner) =>
  (
    await successOf(
      api.POST('/events', {
        body: { type: 'order.created', account_id: owner.userId, data: order },
      }),
    )
  ).data;

type EndpointChange = operations['updateWebhook']['requestBody']['content']['application/json'];

const patch = (owner: WebhookOwner, id: string, body: EndpointChange) =>
  api.PATCH('/webhooks/{id}', { params: { path: { id } }, headers: bearer(owner.token), body });

/** What the service holds now: refusals fail the test. */
const read = async (owner: WebhookOwner, id: string) =>
  (
    await successOf(
      api.GET('/webhooks/{id}', { params: { path: { id } }, headers: bearer(owner.token) }),
    )
  ).data;

const deliveries = async (owner: WebhookOwner, id: string) =>
  (
    await successOf(
      api.GET('/webhooks/{id}/deliveries', {
        params: { path: { id } },
        headers: bearer(owner.token),
      }),
    )
  ).data;

/** Access tokens last 15 minutes: after moving the clock by days, the owner signs in again. */
async function signInAgain(owner: WebhookOwner): Promise<void> {
  owner.token = (await client.login(owner.email, owner.password)).access_token;
}

describe('changing an endpoint (PATCH /v1/webhooks/{id})', { timeout: 60_000 }, () => {
  it('changes url, events and description, and answers what changed', async () => {
    const owner = await webhookOwner(client);
    const endpoint = await register(owner, '/ok-patch');

    const answer = await patch(owner, endpoint.id, {
      url: `${receiver.origin}/ok-patched/./x/..#fragment`,
      events: ['payment.refunded'],
      description: 'Refunds to the ledger',
    });

    expect(answer.response.status).toBe(200);
    expect(answer.data?.data).toMatchObject({
      id: endpoint.id,
      url: `${receiver.origin}/ok-patched/`,
      events: ['payment.refunded'],
      description: 'Refunds to the ledger',
      status: 'enabled',
      disabled_reason: null,
    });
    expect(answer.data?.data).not.toHaveProperty('secret');
    expect(await read(owner, endpoint.id)).toEqual(answer.data?.data);
  });

  it('refuses bad input with one detail per field, a refused URL, and another account’s endpoint', async () => {
    const owner = await webhookOwner(client);
    const stranger = await webhookOwner(client);
    const endpoint = await register(owner, '/ok-bad-patch');

    // What the types refuse to write, sent as written.
    const bad = await client.call('PATCH', `/webhooks/${endpoint.id}`, {
      token: owner.token,
      body: { status: 'paused', events: ['order.shipped'], secret: 'mine' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      {
        field: 'events.0',
        message: expect.stringMatching(/^events\.0 must be one of: order.created, /),
      },
      { field: 'status', message: 'status must be one of: enabled, disabled' },
      { field: 'secret', message: 'secret is not a known field' },
    ]);
    const empty = await patch(owner, endpoint.id, {});
    expect(empty.error?.error.details).toEqual([
      {
        field: 'body',
        message: 'body must change at least one of: url, events, description, status, rate_limit',
      },
    ]);
    for (const url of ['http://127.0.0.1/hook', 'https://[::ffff:0:a9fe:a9fe]/latest/meta-data/']) {
      const refused = await patch(owner, endpoint.id, { url });
      expect(refused.response.status, url).toBe(400);
      expect(refused.error?.error.details[0]?.field, url).toBe('url');
    }
    const foreign = await patch(stranger, endpoint.id, { status: 'disabled' });
    expect(foreign.response.status).toBe(404);
    expect(foreign.error?.error.code).toBe('not_found');
    expect(await read(owner, endpoint.id)).toMatchObject({ url: endpoint.url, status: 'enabled' });
  });
});

describe('disabling and enabling an endpoint', { timeout: 90_000 }, () => {
  it('gives a disabled endpoint no new deliveries, holds its due retry, and sends it once when enabled', async () => {
    const owner = await webhookOwner(client);
    const endpoint = await register(owner, '/fail-hold');
    await publish(owner);
    const [failedOnce] = await eventually(async () => {
      const list = await deliveries(owner, endpoint.id);
      return list[0]?.attempts_made === 1 ? list : undefined;
    });

    const disabled = await patch(owner, endpoint.id, { status: 'disabled' });
    expect(disabled.data?.data).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
    expect((await publish(owner)).delivery_count).toBe(0);
    // Past the retry's time: the sweeper sends it on, and it waits for the endpoint.
    await client.advanceClock(700);
    await eventually(async () =>
      (await deliveries(owner, endpoint.id))[0]?.paused ? true : undefined,
    );
    expect(receiver.to('/fail-hold')).toHaveLength(1);
    // Past every later time of its ladder too; then enabled, with the receiver fixed.
    await client.advanceClock(2 * dayS);
    await signInAgain(owner);
    const enabled = await patch(owner, endpoint.id, {
      status: 'enabled',
      url: `${receiver.origin}/ok-hold`,
    });
    expect(enabled.data?.data).toMatchObject({ status: 'enabled', disabled_reason: null });

    const [delivered] = await eventually(async () => {
      const list = await deliveries(owner, endpoint.id);
      return list[0]?.status === 'delivered' ? list : undefined;
    });
    expect(delivered?.id).toBe(failedOnce?.id);
    expect(
      delivered?.attempts.map((attempt) => [attempt.attempt, attempt.response_status]),
    ).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(receiver.to('/ok-hold')).toHaveLength(1);
  });

  it('refuses retry, recovery and test events while disabled', async () => {
    const owner = await webhookOwner(client);
    const endpoint = await register(owner, '/ok-refuse');
    await patch(owner, endpoint.id, { status: 'disabled' });

    const params = { path: { id: endpoint.id } };
    const headers = bearer(owner.token);
    const answers = {
      test: await api.POST('/webhooks/{id}/test', { params, headers }),
      recover: await api.POST('/webhooks/{id}/recover', {
        params,
        headers,
        body: { since: '2026-01-01' },
      }),
    };
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.response.status, name).toBe(409);
      expect(answer.error?.error.message, name).toMatch(/disabled; enable it/);
    }
  });
});

describe('disabling a failing endpoint automatically', { timeout: 90_000 }, () => {
  it('disables it after 5 days of nothing but failures on the service clock, and emails the owner once', async () => {
    const owner = await webhookOwner(client);
    const endpoint = await register(owner, '/fail-auto');
    await publish(owner);
    const failing = await eventually(async () => {
      const current = await read(owner, endpoint.id);
      return current.failing_since === null ? undefined : current;
    });
    expect(failing.status).toBe('enabled');

    await client.advanceClock(5 * dayS + 3600);
    await signInAgain(owner);
    await publish(owner);
    const disabled = await eventually(async () => {
      const current = await read(owner, endpoint.id);
      return current.status === 'disabled' ? current : undefined;
    });
    expect(disabled).toMatchObject({
      disabled_reason: 'failing',
      failing_since: failing.failing_since,
    });
    // Past the times of the retries scheduled meanwhile: once every delivery has stopped
    // (waiting, or failed), no attempt is left that could send a second notice.
    await client.advanceClock(700);
    await eventually(async () => {
      const list = await deliveries(owner, endpoint.id);
      return list.length === 2 &&
        list.every((delivery) => delivery.status !== 'pending' || delivery.paused)
        ? true
        : undefined;
    });
    const notices = (await client.outbox(owner.email)).filter((mail) =>
      mail.subject?.startsWith('Webhook endpoint disabled'),
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain(endpoint.url);
    expect((await publish(owner)).delivery_count).toBe(0);

    // Enabled again, fixed: what waited goes out, and the failure streak starts afresh.
    const enabled = await patch(owner, endpoint.id, {
      status: 'enabled',
      url: `${receiver.origin}/ok-auto`,
    });
    expect(enabled.data?.data).toMatchObject({ status: 'enabled', failing_since: null });
    await eventually(async () =>
      (await deliveries(owner, endpoint.id)).some((delivery) => delivery.status === 'delivered')
        ? true
        : undefined,
    );
  });
});
