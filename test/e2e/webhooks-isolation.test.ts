import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, bearer, dataOf } from '../../shared/http/client/api-client.js';
import { eventually } from '../support/eventually.js';
import type { ReceivedRequest, TestReceiver } from './webhooks-receiver.js';
import { order, startWebhookService, type WebhookOwner, webhookOwner } from './webhooks-support.js';

/**
 * One tenant's endpoint that never answers must not slow another tenant's deliveries: through
 * `npm start` with the deployed sizes (batch, concurrency, places per endpoint), 500 events to an
 * endpoint that hangs (each attempt waits out the sender's 10 s) and 500 to a healthy one of
 * another account, published together.
 */

let api: ApiClient;
let receiver: TestReceiver;
let stop: () => Promise<void>;
let newOwner: () => Promise<WebhookOwner>;

beforeAll(async () => {
  const started = await startWebhookService({});
  ({ receiver, stop } = started);
  ({ api } = started.client);
  newOwner = () => webhookOwner(started.client);
}, 120_000);

afterAll(async () => {
  await stop?.();
});

const eventsPerEndpoint = 500;

const register = async (owner: WebhookOwner, path: string) =>
  dataOf(
    api.POST('/webhooks', {
      headers: bearer(owner.token),
      body: { url: `${receiver.origin}${path}`, events: ['order.created'] },
    }),
  );

/** Publishes `count` events to each account, interleaved, a few requests at a time. */
async function publishTo(accounts: string[], count: number): Promise<void> {
  const jobs = Array.from({ length: count }, (_, index) =>
    accounts.map((account) => ({ account, index })),
  ).flat();
  const lanes = 8;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let next = lane; next < jobs.length; next += lanes) {
        const { account, index } = jobs[next]!;
        await dataOf(
          api.POST('/events', {
            body: {
              type: 'order.created',
              account_id: account,
              data: { ...order, order_id: `ord_${index}` },
            },
          }),
        );
      }
    }),
  );
}

/** The 99th percentile of how long each delivery took from the event's creation to arrival. */
function p99LatencyMs(requests: ReceivedRequest[]): number {
  const latencies = requests
    .map(
      (request) =>
        request.at - Date.parse((JSON.parse(request.body) as { created_at: string }).created_at),
    )
    .sort((a, b) => a - b);
  return latencies[Math.ceil(latencies.length * 0.99) - 1]!;
}

const arrived = async (path: string, count: number) =>
  eventually(async () => (receiver.to(path).length >= count ? receiver.to(path) : undefined), 240);

describe('rate_limit on an endpoint', { timeout: 60_000 }, () => {
  it('is set on registration and by PATCH, shown in the answer, taken off with null', async () => {
    const owner = await newOwner();
    const created = await dataOf(
      api.POST('/webhooks', {
        headers: bearer(owner.token),
        body: { url: `${receiver.origin}/ok-rated`, events: ['order.created'], rate_limit: 5 },
      }),
    );
    expect(created.rate_limit).toBe(5);
    const patch = (rate_limit: number | null) =>
      api.PATCH('/webhooks/{id}', {
        params: { path: { id: created.id } },
        headers: bearer(owner.token),
        body: { rate_limit },
      });
    expect((await dataOf(patch(20))).rate_limit).toBe(20);
    expect((await dataOf(patch(null))).rate_limit).toBeNull();
    const read = await dataOf(
      api.GET('/webhooks/{id}', {
        params: { path: { id: created.id } },
        headers: bearer(owner.token),
      }),
    );
    expect(read.rate_limit).toBeNull();
  });

  it('refuses a rate that is not a whole number from 1 to 500 with 400 in the envelope, changing nothing', async () => {
    const owner = await newOwner();
    const created = await register(owner, '/ok-rated');
    for (const rate_limit of [0, -1, 1.5, 501, '10', true]) {
      const answer = await api.PATCH('/webhooks/{id}', {
        params: { path: { id: created.id } },
        headers: bearer(owner.token),
        // @ts-expect-error: what a client that ignores the schema sends
        body: { rate_limit },
      });
      expect(answer.response.status).toBe(400);
      expect(answer.error?.error.code).toBe('invalid_request');
      expect(answer.error?.error.details?.map((detail) => detail.field)).toEqual(['rate_limit']);
    }
    const read = await dataOf(
      api.GET('/webhooks/{id}', {
        params: { path: { id: created.id } },
        headers: bearer(owner.token),
      }),
    );
    expect(read.rate_limit).toBeNull();
  });
});

describe('isolation between endpoints', { timeout: 600_000 }, () => {
  it("keeps a healthy endpoint's p99 within 2x of its own while another tenant's endpoint hangs", async () => {
    const healthy = await newOwner();
    const attacker = await newOwner();

    // Alone: the healthy endpoint's own p99.
    const aloneEndpoint = await register(healthy, '/ok-alone');
    await publishTo([healthy.userId], eventsPerEndpoint);
    const alone = p99LatencyMs(await arrived('/ok-alone', eventsPerEndpoint));

    // Together with an endpoint that hangs, of another account (the first endpoint disabled,
    // so the healthy account's events cost as many deliveries as before).
    const shared = await register(healthy, '/ok-shared');
    await dataOf(
      api.PATCH('/webhooks/{id}', {
        params: { path: { id: aloneEndpoint.id } },
        headers: bearer(healthy.token),
        body: { status: 'disabled' },
      }),
    );
    await register(attacker, '/hang-attacker');
    const hangsFrom = Date.now();
    await publishTo([attacker.userId, healthy.userId], eventsPerEndpoint);
    const together = p99LatencyMs(await arrived('/ok-shared', eventsPerEndpoint));

    expect(shared.status).toBe('enabled');
    expect(together).toBeLessThanOrEqual(2 * alone);
    // The hanging endpoint never had more than its 10 places: each request it got stayed open
    // for the sender's 10 s, so no 9.5 s holds more than 10 of them.
    const hangs = receiver.to('/hang-attacker').map((request) => request.at - hangsFrom);
    expect(hangs.length).toBeGreaterThan(0);
    for (const start of hangs) {
      expect(hangs.filter((at) => at >= start && at < start + 9_500).length).toBeLessThanOrEqual(
        10,
      );
    }
  });
});
