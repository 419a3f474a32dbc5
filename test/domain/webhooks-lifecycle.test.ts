import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attemptDelivery, claimLeaseMs } from '../../shared/domain/webhooks/attempt-delivery.js';
import {
  getDelivery,
  listDeliveries,
  recoverDeliveries,
  retryDelivery,
} from '../../shared/domain/webhooks/deliveries.js';
import {
  listEndpoints,
  registerEndpoint,
  updateEndpoint,
} from '../../shared/domain/webhooks/endpoints.js';
import { deliveryIdFor } from '../../shared/domain/webhooks/ids.js';
import type { SendOutcome, SignedRequest } from '../../shared/domain/webhooks/ports.js';
import { publishEvent, sendTestEvent } from '../../shared/domain/webhooks/publish-event.js';
import { sweepDeliveries, sweepGraceMs } from '../../shared/domain/webhooks/sweep-deliveries.js';
import { recordMetrics } from '../support/metric-recorder.js';
import { useFreshTable } from '../support/table.js';
import { createAccount, drain, type Harness, harness } from './webhooks-harness.js';

const dayMs = 24 * 60 * 60 * 1000;
const order = { order_id: 'ord_1', status: 'placed', total: 10, currency: 'EUR' };

let deps: Harness;
let accountSeq = 0;

beforeAll(async () => {
  await useFreshTable();
});

beforeEach(() => {
  deps = harness();
});

async function newEndpoint() {
  accountSeq += 1;
  const account = `usr_life${accountSeq}_${Date.now()}`;
  await createAccount(account, `life${accountSeq}@example.com`);
  const endpoint = await registerEndpoint(deps, account, {
    url: 'https://r.example/hook',
    events: ['order.created', 'order.updated'],
  });
  return { account, endpoint };
}

async function publish(account: string, type: 'order.created' | 'order.updated' = 'order.created') {
  return (await publishEvent(deps, { type, accountId: account, data: order })).event;
}

const fail = (): SendOutcome => ({ status: 500, latencyMs: 1, body: 'down' });
const succeed = (): SendOutcome => ({ status: 200, latencyMs: 1 });
const disabledNotices = () =>
  deps.mailer.sent.filter((mail) => mail.subject.startsWith('Webhook endpoint disabled'));

describe('disabling an endpoint', () => {
  it('lets an attempt that started before the disable finish and be recorded; none starts after it', async () => {
    const { account, endpoint } = await newEndpoint();
    const event = await publish(account);
    const [message] = deps.queue.messages.splice(0);
    let release = () => {};
    const gate = new Promise<void>((open) => {
      release = open;
    });
    const posted: SignedRequest[] = [];
    let reached = () => {};
    const posting = new Promise<void>((resolve) => {
      reached = resolve;
    });
    deps.sender = {
      send: async (request) => {
        posted.push(request);
        reached();
        await gate;
        return fail();
      },
    };

    const inFlight = attemptDelivery(deps, message!);
    // The attempt is posting (however long its claim and reads took on a loaded machine).
    await posting;
    await updateEndpoint(deps, account, endpoint.id, { status: 'disabled' });
    release();

    expect(await inFlight).toBe('retry_scheduled');
    const deliveryId = deliveryIdFor(event.id, endpoint.id);
    expect((await deps.deliveries.get(deliveryId))?.attempts).toHaveLength(1);
    // Its retry comes due while the endpoint is disabled: it waits, unmade.
    await drain(deps);
    expect(posted).toHaveLength(1);
    expect(await deps.deliveries.get(deliveryId)).toMatchObject({
      status: 'paused',
      nextAttempt: 2,
    });
    // And a new event makes no delivery at all.
    expect(
      (await publishEvent(deps, { type: 'order.created', accountId: account, data: order }))
        .deliveryCount,
    ).toBe(0);
  });

  it('loses no attempt and starts none after the disable when both race', async () => {
    const { account, endpoint } = await newEndpoint();
    for (let index = 0; index < 12; index++) await publish(account);
    const messages = deps.queue.messages.splice(0);

    const attempts = Promise.all(messages.map((message) => attemptDelivery(deps, message)));
    await updateEndpoint(deps, account, endpoint.id, { status: 'disabled' });
    const results = await attempts;

    // Every attempt either posted and was recorded, or waits unmade: none lost, none doubled.
    const deliveries = (
      await deps.deliveries.listForEndpoint(endpoint.id, {}, { page: 1, perPage: 100 })
    ).items;
    const delivered = deliveries.filter((delivery) => delivery.status === 'delivered');
    const paused = deliveries.filter((delivery) => delivery.status === 'paused');
    expect(delivered.length + paused.length).toBe(12);
    expect(results.filter((result) => result === 'delivered')).toHaveLength(delivered.length);
    expect(deps.receiver.requests).toHaveLength(delivered.length);
    for (const delivery of delivered) expect(delivery.attempts).toHaveLength(1);
    for (const delivery of paused) expect(delivery.attempts).toHaveLength(0);
    // Attempts that start from now on (redelivered messages, the sweeper) post nothing.
    for (const message of messages) await attemptDelivery(deps, message);
    deps.clock.advance(claimLeaseMs + sweepGraceMs);
    await sweepDeliveries(deps);
    await drain(deps);
    expect(deps.receiver.requests).toHaveLength(delivered.length);
  });

  it('refuses a retry, a recovery and a test event while disabled', async () => {
    const { account, endpoint } = await newEndpoint();
    const event = await publish(account);
    await drain(deps);
    await updateEndpoint(deps, account, endpoint.id, { status: 'disabled' });

    const refusal = { code: 'conflict', message: expect.stringMatching(/disabled; enable it/) };
    await expect(
      retryDelivery(deps, account, endpoint.id, deliveryIdFor(event.id, endpoint.id)),
    ).rejects.toMatchObject(refusal);
    await expect(
      recoverDeliveries(deps, account, endpoint.id, { since: '2026-01-01T00:00:00.000Z' }),
    ).rejects.toMatchObject(refusal);
    await expect(sendTestEvent(deps, account, endpoint.id)).rejects.toMatchObject(refusal);
  });
});

describe('enabling an endpoint again', () => {
  it('sends each waiting delivery once, however many of its ladder times passed, and the ladder goes on', async () => {
    const { account, endpoint } = await newEndpoint();
    const event = await publish(account);
    const deliveryId = deliveryIdFor(event.id, endpoint.id);
    deps.receiver.answer = fail;
    await attemptDelivery(deps, deps.queue.messages.shift()!); // attempt 1 fails
    await updateEndpoint(deps, account, endpoint.id, { status: 'disabled' });
    deps.clock.advance(2 * dayMs); // past the times of attempts 2 to 5
    await drain(deps);
    expect(deps.receiver.requests).toHaveLength(1);
    // The sweeper leaves a waiting delivery alone, and a duplicate message finds nothing to claim.
    expect((await sweepDeliveries(deps)).requeued).toBe(0);
    expect(await attemptDelivery(deps, { deliveryId, attempt: 2 })).toBe('duplicate');

    deps.receiver.answer = succeed;
    const enabled = await updateEndpoint(deps, account, endpoint.id, { status: 'enabled' });
    expect(enabled).toMatchObject({ status: 'enabled', disabledReason: undefined });
    expect(deps.queue.messages).toEqual([{ deliveryId, attempt: 2, delaySeconds: 0 }]);
    await drain(deps);

    expect(deps.receiver.requests).toHaveLength(2);
    const delivery = await deps.deliveries.get(deliveryId);
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.attempts.map((attempt) => [attempt.attempt, attempt.outcome])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
  });

  it('goes on with the ladder from the resumed attempt when it fails again', async () => {
    const { account, endpoint } = await newEndpoint();
    await publish(account);
    deps.receiver.answer = fail;
    await attemptDelivery(deps, deps.queue.messages.shift()!);
    await updateEndpoint(deps, account, endpoint.id, { status: 'disabled' });
    await drain(deps);
    await updateEndpoint(deps, account, endpoint.id, { status: 'enabled' });

    const runs = await drain(deps);

    // Attempt 2 at once, then the ladder's waits after attempts 2, 3 and 4.
    const gaps = runs.slice(1).map((run, index) => (run - (runs[index] ?? 0)) / 1000);
    expect(gaps).toEqual([1800, 7200, 86400]);
    expect(deps.receiver.requests).toHaveLength(5);
  });

  it('sends each waiting delivery once when two requests enable the endpoint at once', async () => {
    const { account, endpoint } = await newEndpoint();
    for (let index = 0; index < 4; index++) await publish(account);
    await updateEndpoint(deps, account, endpoint.id, { status: 'disabled' });
    await drain(deps);

    const answers = await Promise.all([
      updateEndpoint(deps, account, endpoint.id, { status: 'enabled' }),
      updateEndpoint(deps, account, endpoint.id, { status: 'enabled', description: 'back' }),
    ]);

    expect(answers.map((answer) => answer.status)).toEqual(['enabled', 'enabled']);
    expect(deps.queue.messages).toHaveLength(4);
    expect(new Set(deps.queue.messages.map((message) => message.deliveryId)).size).toBe(4);
    await drain(deps);
    expect(deps.receiver.requests).toHaveLength(4);
  });

  it('leaves to the sweeper what the enabling request could not send', async () => {
    const { account, endpoint } = await newEndpoint();
    for (let index = 0; index < 3; index++) await publish(account);
    await updateEndpoint(deps, account, endpoint.id, { status: 'disabled' });
    await drain(deps);
    // The request enables the endpoint, then dies before it sends what waited.
    const dying = {
      ...deps,
      deliveries: {
        ...deps.deliveries,
        listPaused: async () => {
          throw new Error('Lambda timed out');
        },
      },
    };
    await expect(
      updateEndpoint(dying, account, endpoint.id, { status: 'enabled' }),
    ).rejects.toThrow('timed out');
    expect(deps.queue.messages).toEqual([]);

    deps.clock.advance(sweepGraceMs / 2);
    expect((await sweepDeliveries(deps)).resumed).toBe(0);
    deps.clock.advance(sweepGraceMs);
    expect((await sweepDeliveries(deps)).resumed).toBe(3);
    await drain(deps);
    expect(deps.receiver.requests).toHaveLength(3);
    // The endpoint's mark is gone once nothing waits.
    expect(await deps.endpoints.listResuming(deps.clock.now(), 10)).toEqual([]);
  });
});

describe('disabling a failing endpoint automatically', () => {
  it('disables it after 5 days of nothing but failures, on the service clock, and emails once', async () => {
    const { account, endpoint } = await newEndpoint();
    deps.receiver.answer = fail;
    await publish(account);
    await drain(deps); // 5 failures over about 26 hours
    expect((await deps.endpoints.get(account, endpoint.id))?.status).toBe('enabled');

    // Day 5 since the first failure: the next failures disable it, whichever of them records
    // first; the others find it disabled.
    deps.clock.advance(4 * dayMs);
    for (let index = 0; index < 4; index++) await publish(account, 'order.updated');
    const messages = deps.queue.messages.splice(0);
    const recorded = recordMetrics();
    try {
      await Promise.all(messages.map((message) => attemptDelivery(deps, message)));
    } finally {
      recorded.stop();
    }
    // Counted once for the on-call, however many failures raced to disable it.
    expect(recorded.points.filter((point) => point.name === 'EndpointsAutoDisabled')).toHaveLength(
      1,
    );
    // Each attempt failed and was recorded, or (when it began after another had disabled the
    // endpoint) waits unmade; which, depends on how the four interleave.
    const outcomes = recorded.points
      .filter((point) => point.name === 'DeliveryAttempts')
      .map((point) => point.dimensions);
    expect(outcomes).toHaveLength(4);
    expect(outcomes).toContainEqual({ Outcome: 'retry_scheduled', Attempt: '1' });
    for (const outcome of outcomes) {
      expect([
        { Outcome: 'retry_scheduled', Attempt: '1' },
        { Outcome: 'paused', Attempt: '1' },
      ]).toContainEqual(outcome);
    }

    const disabled = await deps.endpoints.get(account, endpoint.id);
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
    expect(disabledNotices()).toHaveLength(1);
    expect(disabledNotices()[0]?.text).toContain(endpoint.url);
    expect(disabledNotices()[0]?.text).toContain('PATCH /v1/webhooks/');
    // Their retries wait; new events make no deliveries.
    await drain(deps);
    const deliveries = (
      await deps.deliveries.listForEndpoint(endpoint.id, {}, { page: 1, perPage: 100 })
    ).items;
    expect(deliveries.filter((delivery) => delivery.status === 'paused')).toHaveLength(4);
    expect(
      (await publishEvent(deps, { type: 'order.created', accountId: account, data: order }))
        .deliveryCount,
    ).toBe(0);
  });

  it('keeps it enabled when a success came within the 5 days', async () => {
    const { account, endpoint } = await newEndpoint();
    deps.receiver.answer = fail;
    await publish(account);
    await drain(deps);
    deps.clock.advance(2 * dayMs);
    deps.receiver.answer = succeed;
    await publish(account);
    await drain(deps);
    expect((await deps.endpoints.get(account, endpoint.id))?.failingSince).toBeUndefined();

    deps.clock.advance(3 * dayMs);
    deps.receiver.answer = fail;
    await publish(account);
    await drain(deps);

    expect((await deps.endpoints.get(account, endpoint.id))?.status).toBe('enabled');
    expect(disabledNotices()).toHaveLength(0);
  });

  it('gives an endpoint enabled again a fresh 5 days', async () => {
    const { account, endpoint } = await newEndpoint();
    deps.receiver.answer = fail;
    await publish(account);
    await drain(deps);
    deps.clock.advance(5 * dayMs);
    await publish(account);
    await attemptDelivery(deps, deps.queue.messages.shift()!);
    expect((await deps.endpoints.get(account, endpoint.id))?.status).toBe('disabled');

    const enabledAt = deps.clock.now();
    await updateEndpoint(deps, account, endpoint.id, { status: 'enabled' });
    await drain(deps); // the waiting retry and the rest of its ladder fail, over about a day

    const endpointNow = await deps.endpoints.get(account, endpoint.id);
    expect(endpointNow?.status).toBe('enabled');
    // The streak starts again with the first failure after the enabling.
    expect(endpointNow?.failingSince).toBeGreaterThan(enabledAt);
    expect(disabledNotices()).toHaveLength(1);
  });
});

describe('recovering failed deliveries', () => {
  async function failedDeliveries(count: number) {
    const { account, endpoint } = await newEndpoint();
    deps.retryDelaysSeconds = [0];
    deps.receiver.answer = fail;
    const start = new Date(deps.clock.now()).toISOString();
    for (let index = 0; index < count; index++) {
      await publish(account);
      deps.clock.advance(1000);
    }
    await drain(deps);
    deps.retryDelaysSeconds = [0, 300, 1800, 7200, 86400];
    return { account, endpoint, start };
  }

  it('re-queues the failed deliveries of the window with a fresh ladder, once however often it is asked', async () => {
    const { account, endpoint, start } = await failedDeliveries(3);
    const notices = deps.mailer.sent.length;
    deps.receiver.answer = succeed;

    const [first, second] = await Promise.all([
      recoverDeliveries(deps, account, endpoint.id, { since: start }),
      recoverDeliveries(deps, account, endpoint.id, { since: start }),
    ]);
    const again = await recoverDeliveries(deps, account, endpoint.id, { since: start });

    expect(first.recovered + second.recovered).toBe(3);
    expect(again).toEqual({ recovered: 0, hasMore: false });
    expect(deps.queue.messages).toHaveLength(3);
    await drain(deps);
    const deliveries = (
      await deps.deliveries.listForEndpoint(endpoint.id, {}, { page: 1, perPage: 100 })
    ).items;
    expect(deliveries.map((delivery) => delivery.status)).toEqual([
      'delivered',
      'delivered',
      'delivered',
    ]);
    expect(deps.mailer.sent).toHaveLength(notices);
  });

  it('gives a recovered delivery the whole ladder again, without a second notice', async () => {
    const { account, endpoint, start } = await failedDeliveries(1);
    const notices = deps.mailer.sent.length;

    await recoverDeliveries(deps, account, endpoint.id, { since: start });
    const runs = await drain(deps);

    const gaps = runs.slice(1).map((run, index) => (run - (runs[index] ?? 0)) / 1000);
    expect(gaps).toEqual([300, 1800, 7200, 86400]);
    const [delivery] = (
      await deps.deliveries.listForEndpoint(endpoint.id, {}, { page: 1, perPage: 100 })
    ).items;
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(deps.mailer.sent).toHaveLength(notices);
  });

  it('re-queues at most a page per call and tells when more remain', async () => {
    const { account, endpoint, start } = await failedDeliveries(5);

    const calls = [];
    for (let call = 0; call < 3; call++) {
      calls.push(await recoverDeliveries(deps, account, endpoint.id, { since: start }, 2));
    }

    expect(calls).toEqual([
      { recovered: 2, hasMore: true },
      { recovered: 2, hasMore: true },
      { recovered: 1, hasMore: false },
    ]);
  });

  it('keeps to the window: since counts, until does not', async () => {
    const { account, endpoint, start } = await failedDeliveries(3);
    const at = (offsetMs: number) => new Date(Date.parse(start) + offsetMs).toISOString();

    expect(
      await recoverDeliveries(deps, account, endpoint.id, { since: at(1000), until: at(2000) }),
    ).toEqual({ recovered: 1, hasMore: false });
    await expect(
      recoverDeliveries(deps, account, endpoint.id, { since: at(2000), until: at(1000) }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'since', message: expect.stringMatching(/^must be before until/) }],
    });
  });

  it('keeps the latest 20 attempt records however often a delivery is recovered', async () => {
    const { account, endpoint, start } = await failedDeliveries(1);
    for (let round = 0; round < 5; round++) {
      await recoverDeliveries(deps, account, endpoint.id, { since: start });
      await drain(deps);
    }
    const [delivery] = (
      await deps.deliveries.listForEndpoint(endpoint.id, {}, { page: 1, perPage: 100 })
    ).items;
    expect(delivery?.nextAttempt).toBe(27);
    expect(delivery?.attempts.map((attempt) => attempt.attempt)).toEqual(
      Array.from({ length: 20 }, (_, index) => index + 7),
    );
  });
});

describe('changing an endpoint (PATCH)', () => {
  it('changes what is given and keeps the rest', async () => {
    const { account, endpoint } = await newEndpoint();
    deps.clock.advance(60_000);

    const updated = await updateEndpoint(deps, account, endpoint.id, {
      url: 'https://new.example:443/./hook#x',
      description: 'orders to the ERP',
    });

    expect(updated).toMatchObject({
      url: 'https://new.example/hook',
      events: endpoint.events,
      description: 'orders to the ERP',
      status: 'enabled',
      secret: endpoint.secret,
      createdAt: endpoint.createdAt,
      updatedAt: new Date(deps.clock.now()).toISOString(),
    });
    expect(await deps.endpoints.get(account, endpoint.id)).toEqual(updated);
  });

  it('puts a new URL through the SSRF guard again', async () => {
    const { account, endpoint } = await newEndpoint();
    deps.urlGuard = { check: async () => 'must resolve to a public address' };

    await expect(
      updateEndpoint(deps, account, endpoint.id, { url: 'https://[::ffff:0:7f00:1]/' }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'url', message: 'must resolve to a public address' }],
    });
    expect((await deps.endpoints.get(account, endpoint.id))?.url).toBe(endpoint.url);
  });

  it('answers not found for another account’s endpoint and changes nothing', async () => {
    const { endpoint } = await newEndpoint();
    const { account: stranger } = await newEndpoint();

    await expect(
      updateEndpoint(deps, stranger, endpoint.id, { status: 'disabled' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect((await deps.endpoints.get(endpoint.accountId, endpoint.id))?.status).toBe('enabled');
  });

  it('lists endpoints by status and creation time', async () => {
    const { account, endpoint: first } = await newEndpoint();
    deps.clock.advance(dayMs);
    const second = await registerEndpoint(deps, account, {
      url: 'https://s.example/h',
      events: ['order.created'],
    });
    await updateEndpoint(deps, account, first.id, { status: 'disabled' });
    const page = { page: 1, perPage: 20 };
    const ids = async (filter: Parameters<typeof listEndpoints>[2]) =>
      (await listEndpoints(deps, account, filter, page)).items.map((endpoint) => endpoint.id);

    expect(await ids({ status: 'disabled' })).toEqual([first.id]);
    expect(await ids({ status: 'enabled' })).toEqual([second.id]);
    expect(await ids({ createdAfter: first.createdAt })).toEqual([second.id]);
    expect(await ids({ createdBefore: second.createdAt })).toEqual([first.id]);
    await expect(
      ids({ createdAfter: second.createdAt, createdBefore: first.createdAt }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'created_after', message: 'must be before created_before' }],
    });
  });
});

describe('reading deliveries', () => {
  it('filters by status (pending includes waiting ones), event type and creation time', async () => {
    const { account, endpoint } = await newEndpoint();
    const created = await publish(account);
    deps.clock.advance(1000);
    const updated = await publish(account, 'order.updated');
    await drain(deps);
    deps.clock.advance(1000);
    const waiting = await publish(account);
    await updateEndpoint(deps, account, endpoint.id, { status: 'disabled' });
    await drain(deps);
    const page = { page: 1, perPage: 20 };
    const eventIds = async (filter: Parameters<typeof listDeliveries>[3]) =>
      (await listDeliveries(deps, account, endpoint.id, filter, page)).items.map(
        (delivery) => delivery.eventId,
      );

    expect(await eventIds({ status: 'pending' })).toEqual([waiting.id]);
    expect(await eventIds({ status: 'delivered' })).toEqual([updated.id, created.id]);
    expect(await eventIds({ eventType: 'order.updated' })).toEqual([updated.id]);
    expect(await eventIds({ createdBefore: updated.createdAt })).toEqual([created.id]);
    expect(
      await eventIds({ createdAfter: created.createdAt, createdBefore: waiting.createdAt }),
    ).toEqual([updated.id]);
  });

  it('shows one delivery with its event, only to its owner through its endpoint', async () => {
    const { account, endpoint } = await newEndpoint();
    const { account: stranger, endpoint: other } = await newEndpoint();
    const event = await publish(account);
    await drain(deps);
    const deliveryId = deliveryIdFor(event.id, endpoint.id);

    const found = await getDelivery(deps, account, endpoint.id, deliveryId);
    expect(found.delivery).toMatchObject({ id: deliveryId, status: 'delivered' });
    expect(found.event?.payload).toBe(event.payload);
    for (const [owner, endpointId] of [
      [stranger, endpoint.id],
      [account, other.id],
      [stranger, other.id],
    ] as const) {
      await expect(getDelivery(deps, owner, endpointId, deliveryId)).rejects.toMatchObject({
        code: 'not_found',
      });
    }
    await deps.endpoints.delete(account, endpoint.id);
    await expect(getDelivery(deps, account, endpoint.id, deliveryId)).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
