import { createHmac } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamo } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import {
  attemptDelivery,
  claimLeaseMs,
  maxClaimsPerAttempt,
} from '../../shared/domain/webhooks/attempt-delivery.js';
import { retryDelivery } from '../../shared/domain/webhooks/deliveries.js';
import {
  deleteEndpoint,
  registerEndpoint,
  rotateEndpointSecret,
} from '../../shared/domain/webhooks/endpoints.js';
import { sendDueDigests } from '../../shared/domain/webhooks/failure-digest.js';
import { deliveryIdFor } from '../../shared/domain/webhooks/ids.js';
import type { SignedRequest } from '../../shared/domain/webhooks/ports.js';
import { publishEvent } from '../../shared/domain/webhooks/publish-event.js';
import { scheduleAttempt } from '../../shared/domain/webhooks/schedule-attempt.js';
import { sweepDeliveries, sweepGraceMs } from '../../shared/domain/webhooks/sweep-deliveries.js';
import { recordMetrics } from '../support/metric-recorder.js';
import { useFreshTable } from '../support/table.js';
import { createAccount, drain, type Harness, harness, testEpoch } from './webhooks-harness.js';

let deps: Harness;
let accountSeq = 0;
const newAccount = async () => {
  accountSeq += 1;
  const accountId = `usr_test${accountSeq}_${Date.now()}`;
  await createAccount(accountId, `owner${accountSeq}@example.com`);
  return accountId;
};

let table = '';

beforeAll(async () => {
  table = await useFreshTable();
});

beforeEach(() => {
  deps = harness();
});

/** Verifies a request as a Standard Webhooks receiver would at the moment it was sent. */
function verifyStandard(secret: string, request: SignedRequest | undefined): unknown {
  const headers = {
    'webhook-id': request?.headers['webhook-id'] ?? '',
    'webhook-timestamp': request?.headers['webhook-timestamp'] ?? '',
    'webhook-signature': request?.headers['webhook-signature'] ?? '',
  };
  const realNow = Date.now;
  Date.now = () => Number(headers['webhook-timestamp']) * 1000;
  try {
    return new Webhook(secret).verify(request?.body ?? '', headers);
  } finally {
    Date.now = realNow;
  }
}

const order = { order_id: 'ord_123', status: 'placed', total: 25.5, currency: 'USD' };

describe('publishing an event', () => {
  it('stores the event and makes one delivery per endpoint of the account subscribed to its type', async () => {
    const account = await newAccount();
    const other = await newAccount();
    const orders = await registerEndpoint(deps, account, {
      url: 'https://a.example/hook',
      events: ['order.created', 'order.updated'],
    });
    await registerEndpoint(deps, account, {
      url: 'https://b.example/hook',
      events: ['payment.failed'],
    });
    await registerEndpoint(deps, other, {
      url: 'https://c.example/hook',
      events: ['order.created'],
    });

    const { event, deliveryCount } = await publishEvent(deps, {
      type: 'order.created',
      accountId: account,
      data: order,
    });

    expect(event.id).toMatch(/^evt_[a-z2-7]{20}$/);
    expect(event.createdAt).toBe(new Date(testEpoch).toISOString());
    expect(JSON.parse(event.payload)).toEqual({
      id: event.id,
      type: 'order.created',
      created_at: new Date(testEpoch).toISOString(),
      data: order,
    });
    expect(deliveryCount).toBe(1);
    expect(deps.queue.messages).toEqual([
      { deliveryId: deliveryIdFor(event.id, orders.id), attempt: 1, delaySeconds: 0 },
    ]);
    const delivery = await deps.deliveries.get(deliveryIdFor(event.id, orders.id));
    expect(delivery).toMatchObject({ status: 'pending', nextAttempt: 1, endpointId: orders.id });
  });

  it('returns the first event for a repeated Idempotency-Key and creates no second deliveries', async () => {
    const account = await newAccount();
    await registerEndpoint(deps, account, {
      url: 'https://a.example/h',
      events: ['order.created'],
    });
    const input = {
      type: 'order.created' as const,
      accountId: account,
      data: order,
      idempotencyKey: 'k-1',
    };

    const first = await publishEvent(deps, input);
    deps.clock.advance(60_000);
    const again = await publishEvent(deps, input);

    expect(again.event.id).toBe(first.event.id);
    expect(again.event.payload).toBe(first.event.payload);
    expect(deps.queue.messages).toHaveLength(1);
  });

  it('refuses data that does not fit its type, storing and queueing nothing', async () => {
    const account = await newAccount();
    const endpoint = await registerEndpoint(deps, account, {
      url: 'https://a.example/h',
      events: ['order.created'],
    });

    await expect(
      publishEvent(deps, {
        type: 'order.created',
        accountId: account,
        data: { order_id: 42, total: 'abc' },
      }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: [
        { field: 'data.order_id', message: 'must be a string' },
        { field: 'data.status', message: 'is required' },
        { field: 'data.total', message: 'must be a number: a decimal amount such as 19.99' },
        { field: 'data.currency', message: 'is required' },
      ],
    });
    expect(deps.queue.messages).toEqual([]);
    expect(
      (await deps.deliveries.listForEndpoint(endpoint.id, {}, { page: 1, perPage: 100 })).items,
    ).toEqual([]);
  });

  it('refuses an Idempotency-Key reused with a different request', async () => {
    const account = await newAccount();
    await publishEvent(deps, {
      type: 'order.created',
      accountId: account,
      data: order,
      idempotencyKey: 'k-2',
    });
    await expect(
      publishEvent(deps, {
        type: 'order.created',
        accountId: account,
        data: { ...order, total: 99 },
        idempotencyKey: 'k-2',
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('the endpoint limit per account', () => {
  const register = (account: string, index: number) =>
    registerEndpoint(deps, account, {
      url: `https://r${index}.example/hook`,
      events: ['order.created'],
    });

  it('refuses a registration past the limit with a conflict that names the limit', async () => {
    deps.endpointsPerAccount = 3;
    const account = await newAccount();
    for (let index = 0; index < 3; index++) await register(account, index);

    await expect(register(account, 3)).rejects.toMatchObject({
      code: 'conflict',
      message: 'An account can have at most 3 webhook endpoints; delete one to register another',
    });
    expect(await deps.endpoints.listForAccount(account)).toHaveLength(3);
    // The limit is per account: another account still registers.
    await register(await newAccount(), 0);
  });

  it('creates exactly the limit when twice as many registrations race for it', async () => {
    const limit = deps.endpointsPerAccount;
    const account = await newAccount();

    const outcomes = await Promise.allSettled(
      Array.from({ length: 2 * limit }, (_, index) => register(account, index)),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(limit);
    const refusals = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [outcome.reason] : [],
    );
    expect(refusals).toHaveLength(limit);
    for (const refusal of refusals) expect(refusal).toMatchObject({ code: 'conflict' });
    expect(await deps.endpoints.listForAccount(account)).toHaveLength(limit);
  }, 30_000);

  it('frees a slot when an endpoint is deleted, and only one', async () => {
    deps.endpointsPerAccount = 2;
    const account = await newAccount();
    const first = await register(account, 0);
    await register(account, 1);
    await expect(register(account, 2)).rejects.toMatchObject({ code: 'conflict' });

    await deleteEndpoint(deps, account, first.id);
    await expect(deleteEndpoint(deps, account, first.id)).rejects.toMatchObject({
      code: 'not_found',
    });
    await register(account, 3);

    await expect(register(account, 4)).rejects.toMatchObject({ code: 'conflict' });
    expect(await deps.endpoints.listForAccount(account)).toHaveLength(2);
  });

  it('deletes an endpoint stored before endpoints were counted', async () => {
    const account = await newAccount();
    const endpoint = {
      id: 'whk_uncounted',
      accountId: account,
      url: 'https://old.example/hook',
      events: ['order.created' as const],
      secret: 'whsec_old',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await dynamo().send(
      new PutCommand({
        TableName: process.env.TABLE_NAME,
        Item: {
          ...keys.webhookEndpoint(account, endpoint.id),
          id: endpoint.id,
          account_id: account,
          url: endpoint.url,
          events: endpoint.events,
          secret: endpoint.secret,
          created_at: endpoint.createdAt,
        },
      }),
    );

    await deleteEndpoint(deps, account, endpoint.id);

    expect(await deps.endpoints.get(account, endpoint.id)).toBeUndefined();
  });
});

describe('delivering', () => {
  async function oneDelivery(events: ['order.created'] = ['order.created']) {
    const account = await newAccount();
    const endpoint = await registerEndpoint(deps, account, {
      url: 'https://r.example/hook',
      events,
    });
    const { event } = await publishEvent(deps, {
      type: 'order.created',
      accountId: account,
      data: order,
    });
    return { account, endpoint, event, deliveryId: deliveryIdFor(event.id, endpoint.id) };
  }

  it('posts the exact stored bytes, signed with X-Service-Signature and Standard Webhooks headers', async () => {
    const { endpoint, event, deliveryId } = await oneDelivery();

    expect(await drain(deps)).toHaveLength(1);

    const [request] = deps.receiver.requests;
    expect(request?.body).toBe(event.payload);
    expect(request?.headers['x-service-signature']).toBe(
      createHmac('sha256', endpoint.secret).update(event.payload).digest('hex'),
    );
    expect(request?.headers['webhook-id']).toBe(event.id);
    expect(request?.headers['webhook-timestamp']).toBe(String(deps.clock.now() / 1000));
    expect(verifyStandard(endpoint.secret, request)).toEqual(JSON.parse(event.payload));
    expect(() => verifyStandard('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', request)).toThrow();
    const delivery = await deps.deliveries.get(deliveryId);
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'succeeded', responseStatus: 200 }),
    ]);
  });

  it('tries a failing endpoint exactly 5 times on the ladder, then fails it and counts it in the day’s digest', async () => {
    const { deliveryId } = await oneDelivery();
    deps.receiver.answer = () => ({ status: 500, latencyMs: 12, body: 'boom' });

    const runs = await drain(deps);

    expect(deps.receiver.requests).toHaveLength(5);
    const gaps = runs.slice(1).map((run, index) => (run - (runs[index] ?? 0)) / 1000);
    expect(gaps).toEqual([300, 1800, 7200, 86400]);
    const delivery = await deps.deliveries.get(deliveryId);
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(delivery?.attempts[4]).toMatchObject({
      outcome: 'failed',
      responseStatus: 500,
      responseBody: 'boom',
      error: 'the endpoint answered HTTP 500',
    });
    // No email per failure: the day's digest, once the day is over.
    expect(deps.mailer.sent).toHaveLength(0);
    deps.clock.advance(24 * 60 * 60 * 1000);
    const sentBefore = deps.mailer.sent.length;
    const recorded = recordMetrics();
    try {
      await sendDueDigests(deps);
    } finally {
      recorded.stop();
    }
    // One point per digest sent (other tests' endpoints share the table and may have theirs).
    const counted = recorded.points.filter((point) => point.name === 'FailureDigestsSent');
    expect(counted.length).toBeGreaterThanOrEqual(1);
    expect(counted).toHaveLength(deps.mailer.sent.length - sentBefore);
    const owner = `owner${accountSeq}@example.com`;
    const digests = deps.mailer.sent.filter((mail) => mail.to === owner);
    expect(digests).toHaveLength(1);
    expect(digests[0]?.subject).toMatch(/^Webhook deliveries failed on \d{4}-\d\d-\d\d: 1 to /);
    expect(digests[0]?.text).toContain('order.created: 1');
    expect(digests[0]?.text).toContain('the endpoint answered HTTP 500');
  });

  it('makes one attempt when the same queue message arrives twice, even at the same moment', async () => {
    const { deliveryId } = await oneDelivery();
    const message = { deliveryId, attempt: 1 };

    const results = await Promise.all([
      attemptDelivery(deps, message),
      attemptDelivery(deps, message),
    ]);
    const later = await attemptDelivery(deps, message);

    expect(results.sort()).toEqual(['delivered', 'duplicate']);
    expect(later).toBe('duplicate');
    expect(deps.receiver.requests).toHaveLength(1);
    expect((await deps.deliveries.get(deliveryId))?.attempts).toHaveLength(1);
  });

  it('never makes a sixth attempt when the last attempt’s message is redelivered', async () => {
    const { deliveryId } = await oneDelivery();
    deps.receiver.answer = () => ({ status: 503, latencyMs: 1 });
    await drain(deps);

    expect(await attemptDelivery(deps, { deliveryId, attempt: 5 })).toBe('duplicate');
    expect(await attemptDelivery(deps, { deliveryId, attempt: 6 })).toBe('duplicate');
    expect(deps.receiver.requests).toHaveLength(5);
  });

  it('counts an attempt once when its worker died after the POST and the message came back', async () => {
    const { deliveryId } = await oneDelivery();
    const dying = {
      ...deps,
      deliveries: {
        ...deps.deliveries,
        recordAttempt: async () => {
          throw new Error('Lambda timed out');
        },
      },
    };
    await expect(attemptDelivery(dying, { deliveryId, attempt: 1 })).rejects.toThrow('timed out');
    expect(deps.receiver.requests).toHaveLength(1);

    // SQS redelivers before the lease ends: another worker may still be busy, so it is dropped.
    deps.clock.advance(claimLeaseMs / 2);
    expect(await attemptDelivery(deps, { deliveryId, attempt: 1 })).toBe('duplicate');
    // After the lease: the attempt is taken over, as attempt 1 still.
    deps.clock.advance(claimLeaseMs);
    deps.receiver.answer = () => ({ status: 500, latencyMs: 1 });
    expect(await attemptDelivery(deps, { deliveryId, attempt: 1 })).toBe('retry_scheduled');

    const delivery = await deps.deliveries.get(deliveryId);
    expect(delivery?.attempts.map((attempt) => attempt.attempt)).toEqual([1]);
    expect(delivery).toMatchObject({ status: 'pending', nextAttempt: 2 });
    expect(deps.receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([
      delivery?.eventId,
      delivery?.eventId,
    ]);
  });

  it('takes a record the SDK wrote twice (its first answer lost) as recorded once, another worker’s as lost', async () => {
    const { deliveryId } = await oneDelivery();
    const now = deps.clock.now();
    const lease = { now, dueBy: now, leaseUntil: now + claimLeaseMs };
    const delivery = await deps.deliveries.claim(deliveryId, 1, { token: 'mine', ...lease });
    if (delivery === undefined) throw new Error('not claimed');
    const record = {
      attempt: 1,
      attemptedAt: new Date(now).toISOString(),
      outcome: 'failed' as const,
      latencyMs: 4,
      error: 'the endpoint answered HTTP 500',
    };
    const resolution = { status: 'pending' as const, nextAttemptAt: now + 300_000 };

    expect(await deps.deliveries.recordAttempt(delivery, 'mine', record, resolution)).toBe(true);
    expect(await deps.deliveries.recordAttempt(delivery, 'mine', record, resolution)).toBe(true);
    const late = { ...record, attemptedAt: new Date(now + 1).toISOString() };
    expect(await deps.deliveries.recordAttempt(delivery, 'theirs', late, resolution)).toBe(false);

    expect(await deps.deliveries.get(deliveryId)).toMatchObject({
      status: 'pending',
      nextAttempt: 2,
      attempts: [expect.objectContaining({ attempt: 1, attemptedAt: record.attemptedAt })],
    });
  });

  it('counts an attempt whose worker keeps dying as failed after 3 tries, and moves on', async () => {
    const { deliveryId } = await oneDelivery();
    const dying = {
      ...deps,
      deliveries: {
        ...deps.deliveries,
        recordAttempt: async () => {
          throw new Error('out of memory');
        },
      },
    };
    for (let run = 0; run < maxClaimsPerAttempt; run++) {
      await expect(attemptDelivery(dying, { deliveryId, attempt: 1 })).rejects.toThrow();
      deps.clock.advance(claimLeaseMs + 1000);
    }

    expect(await attemptDelivery(deps, { deliveryId, attempt: 1 })).toBe('retry_scheduled');

    expect(deps.receiver.requests).toHaveLength(maxClaimsPerAttempt);
    const delivery = await deps.deliveries.get(deliveryId);
    expect(delivery).toMatchObject({ status: 'pending', nextAttempt: 2 });
    expect(delivery?.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        outcome: 'failed',
        error: expect.stringMatching(/no outcome recorded after 3 tries/),
      }),
    ]);
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const { account, endpoint } = await oneDelivery();
    await drain(deps);
    const rotated = await rotateEndpointSecret(deps, account, endpoint.id);

    await publishEvent(deps, {
      type: 'order.created',
      accountId: account,
      data: { ...order, status: 'preparing' },
    });
    await drain(deps);
    const during = deps.receiver.requests.at(-1);
    expect(verifyStandard(rotated.secret, during)).toEqual({ ...JSON.parse(during?.body ?? '') });
    expect(verifyStandard(endpoint.secret, during)).toBeDefined();
    // X-Service-Signature: exactly one hex value, keyed with the newest secret.
    expect(during?.headers['x-service-signature']).toBe(
      createHmac('sha256', rotated.secret)
        .update(during?.body ?? '')
        .digest('hex'),
    );
    expect(during?.headers['webhook-signature']?.split(' ')).toHaveLength(2);

    deps.clock.advance(24 * 60 * 60 * 1000 + 1000);
    await publishEvent(deps, {
      type: 'order.created',
      accountId: account,
      data: { ...order, status: 'ready' },
    });
    await drain(deps);
    const after = deps.receiver.requests.at(-1);
    expect(after?.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(after?.headers['webhook-signature']?.split(' ')).toHaveLength(1);
  });

  it('ends a delivery whose endpoint was deleted without posting', async () => {
    const { account, endpoint, deliveryId } = await oneDelivery();
    await deps.endpoints.delete(account, endpoint.id);

    expect(await attemptDelivery(deps, { deliveryId, attempt: 1 })).toBe('abandoned');
    expect(deps.receiver.requests).toHaveLength(0);
    expect((await deps.deliveries.get(deliveryId))?.status).toBe('failed');
  });
});

/** A delivery whose queue message was lost: an event published to a new account's one endpoint. */
async function lostDelivery(): Promise<string> {
  const account = await newAccount();
  const endpoint = await registerEndpoint(deps, account, {
    url: 'https://r.example/h',
    events: ['order.created'],
  });
  const { event } = await publishEvent(deps, {
    type: 'order.created',
    accountId: account,
    data: order,
  });
  deps.queue.messages = []; // the message is lost
  return deliveryIdFor(event.id, endpoint.id);
}

/** The gsi2 partition a delivery is listed on. */
async function dueIndexPartitionOf(deliveryId: string): Promise<unknown> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table, Key: keys.delivery(deliveryId) }),
  );
  return Item?.gsi2pk;
}

describe('retrying and sweeping', () => {
  it('gives a failed delivery one more attempt on request, without a second notice', async () => {
    const account = await newAccount();
    const endpoint = await registerEndpoint(deps, account, {
      url: 'https://r.example/h',
      events: ['order.created'],
    });
    const { event } = await publishEvent(deps, {
      type: 'order.created',
      accountId: account,
      data: order,
    });
    deps.receiver.answer = () => ({ status: 500, latencyMs: 1 });
    await drain(deps);

    const deliveryId = deliveryIdFor(event.id, endpoint.id);
    const reopened = await retryDelivery(deps, account, endpoint.id, deliveryId);
    expect(reopened).toMatchObject({ status: 'pending', nextAttempt: 6 });
    await drain(deps);

    const delivery = await deps.deliveries.get(deliveryId);
    expect(delivery?.attempts).toHaveLength(6);
    expect(delivery?.status).toBe('failed');
    // Counted once in the day's digest: the retried ladder's failure is not counted again.
    deps.clock.advance(24 * 60 * 60 * 1000);
    await sendDueDigests(deps);
    const digest = deps.mailer.sent.find((mail) => mail.text.includes(endpoint.id));
    expect(digest?.subject).toMatch(/: 1 to /);

    deps.receiver.answer = () => ({ status: 204, latencyMs: 1 });
    await retryDelivery(deps, account, endpoint.id, deliveryId);
    await drain(deps);
    expect((await deps.deliveries.get(deliveryId))?.status).toBe('delivered');
  });

  it('refuses to retry another account’s delivery', async () => {
    const account = await newAccount();
    const endpoint = await registerEndpoint(deps, account, {
      url: 'https://r.example/h',
      events: ['order.created'],
    });
    const { event } = await publishEvent(deps, {
      type: 'order.created',
      accountId: account,
      data: order,
    });
    await expect(
      retryDelivery(deps, 'usr_someone_else', endpoint.id, deliveryIdFor(event.id, endpoint.id)),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('re-queues a delivery whose messages were lost, once it is overdue', async () => {
    const lost = await lostDelivery();

    deps.clock.advance(sweepGraceMs / 2);
    await sweepDeliveries(deps);
    expect(deps.queue.messages.map((m) => m.deliveryId)).not.toContain(lost);
    deps.clock.advance(sweepGraceMs);
    await sweepDeliveries(deps);

    expect(deps.queue.messages).toContainEqual({ deliveryId: lost, attempt: 1, delaySeconds: 0 });
    deps.queue.messages = deps.queue.messages.filter((m) => m.deliveryId === lost);
    await drain(deps);
    expect((await deps.deliveries.get(lost))?.status).toBe('delivered');
  });

  it('re-queues every lost delivery of a fan-out, whichever shard of the due index it is on', async () => {
    const account = await newAccount();
    const endpoints = [];
    for (let index = 0; index < 12; index++) {
      endpoints.push(
        await registerEndpoint(deps, account, {
          url: `https://s${index}.example/h`,
          events: ['order.created'],
        }),
      );
    }
    const { event } = await publishEvent(deps, {
      type: 'order.created',
      accountId: account,
      data: order,
    });
    deps.queue.messages = []; // every message is lost
    const lost = endpoints.map((endpoint) => deliveryIdFor(event.id, endpoint.id));
    const shards = new Set(await Promise.all(lost.map(dueIndexPartitionOf)));
    expect(shards.size).toBeGreaterThan(1);

    deps.clock.advance(sweepGraceMs + 1000);
    await sweepDeliveries(deps);

    expect(deps.queue.messages.map((m) => m.deliveryId)).toEqual(expect.arrayContaining(lost));
  });

  it('sweeps a delivery listed before the due index was sharded, and moves it to its shard', async () => {
    const lost = await lostDelivery();
    await dynamo().send(
      new UpdateCommand({
        TableName: table,
        Key: keys.delivery(lost),
        UpdateExpression: 'SET gsi2pk = :unsharded',
        ExpressionAttributeValues: { ':unsharded': 'DELIVERIES_DUE' },
      }),
    );

    deps.clock.advance(sweepGraceMs + 1000);
    await sweepDeliveries(deps);
    expect(deps.queue.messages).toContainEqual({ deliveryId: lost, attempt: 1, delaySeconds: 0 });

    deps.receiver.answer = () => ({ status: 500, latencyMs: 3 });
    deps.queue.messages = deps.queue.messages.filter((m) => m.deliveryId === lost).slice(0, 1);
    const message = deps.queue.messages.shift();
    if (message !== undefined) await attemptDelivery(deps, message);
    expect(await dueIndexPartitionOf(lost)).toBe(keys.dueDeliveries(lost).gsi2pk);
    expect((await deps.deliveries.get(lost))?.status).toBe('pending');
  });

  it('finishes a fan-out that a crashed publisher left behind', async () => {
    const account = await newAccount();
    const endpoint = await registerEndpoint(deps, account, {
      url: 'https://r.example/h',
      events: ['order.created'],
    });
    const crashing = {
      ...deps,
      deliveries: {
        ...deps.deliveries,
        createMany: async () => {
          throw new Error('process killed');
        },
      },
    };
    await expect(
      publishEvent(crashing, { type: 'order.created', accountId: account, data: order }),
    ).rejects.toThrow('killed');

    deps.clock.advance(sweepGraceMs + 1000);
    const result = await sweepDeliveries(deps);

    expect(result.fannedOut).toBeGreaterThanOrEqual(1);
    await drain(deps);
    const deliveries = (
      await deps.deliveries.listForEndpoint(endpoint.id, {}, { page: 1, perPage: 100 })
    ).items;
    expect(deliveries.map((delivery) => delivery.status)).toEqual(['delivered']);
  });
});

describe('scheduling an attempt', () => {
  it('uses a queue delay up to 15 minutes and, beyond, one wake-up per due minute', async () => {
    const now = deps.clock.now();
    await scheduleAttempt(deps, { deliveryId: 'dlv_a', attempt: 2 }, now + 300_000);
    await scheduleAttempt(deps, { deliveryId: 'dlv_a', attempt: 3 }, now + 1_800_000);
    await scheduleAttempt(deps, { deliveryId: 'dlv_b', attempt: 3 }, now + 1_800_000 + 59_000);
    await scheduleAttempt(deps, { deliveryId: 'dlv_c', attempt: 3 }, now + 1_860_000);

    expect(deps.queue.messages).toEqual([{ deliveryId: 'dlv_a', attempt: 2, delaySeconds: 300 }]);
    // testEpoch is a whole minute: the first two fall in one minute, the third in the next.
    expect(deps.scheduler.wakes).toEqual([now + 1_800_000, now + 1_860_000]);
  });

  it('gives the minute back when its wake-up cannot be created, for the next attempt to create', async () => {
    const now = deps.clock.now();
    const failing = { wakeAt: async () => Promise.reject(new Error('Scheduler is down')) };
    const recorded = recordMetrics();
    try {
      await expect(
        scheduleAttempt(
          { ...deps, scheduler: failing },
          { deliveryId: 'dlv_a', attempt: 3 },
          now + 1_800_000,
        ),
      ).rejects.toThrow('Scheduler is down');
    } finally {
      recorded.stop();
    }
    // Counted for the alarm that watches failed wake-ups.
    expect(recorded.points.map((point) => point.name)).toEqual(['LadderWakeFailed']);
    await scheduleAttempt(deps, { deliveryId: 'dlv_b', attempt: 3 }, now + 1_800_000);
    expect(deps.scheduler.wakes).toEqual([now + 1_800_000]);
  });
});
