import { beforeAll, describe, expect, it } from 'vitest';
import { aroundDynamoCalls } from '../../shared/adapters/dynamodb.js';
import { Refusal } from '../../shared/domain/errors.js';
import type { PageRequest } from '../../shared/domain/pages.js';
import { listDeliveries } from '../../shared/domain/webhooks/deliveries.js';
import type { Delivery } from '../../shared/domain/webhooks/model.js';
import { useFreshTable } from '../support/table.js';
import { accountWithEndpoint, type Harness, harness, testEpoch } from './webhooks-harness.js';

/**
 * Lists read one page: a list's DynamoDB calls and the items they read do not grow with the
 * history behind the page, and a cursor only ever points into the list it is given to.
 */

let deps: Harness;
/** Each call while counting: its operation and the items DynamoDB read for it. */
let calls: { operation: string; read: number }[] | undefined;

const itemsRead = (output: Record<string, unknown>): number => {
  if (typeof output.ScannedCount === 'number') return output.ScannedCount;
  if (output.Item !== undefined) return 1;
  const responses = output.Responses as Record<string, unknown[]> | undefined;
  return Object.values(responses ?? {}).reduce((sum, items) => sum + items.length, 0);
};

beforeAll(async () => {
  await useFreshTable();
  aroundDynamoCalls(async ({ operation }, next) => {
    const output = await next();
    calls?.push({ operation, read: itemsRead(output) });
    return output;
  });
  deps = harness();
});

/** An endpoint of a new account with `count` deliveries, one a second, the newest last. */
async function endpointWith(count: number) {
  const { account, endpoint } = await accountWithEndpoint(deps, 'pages');
  const deliveries: Delivery[] = Array.from({ length: count }, (_, index) => ({
    id: `dlv_${endpoint.id}_${String(index).padStart(5, '0')}`,
    eventId: `evt_${endpoint.id}_${index}`,
    eventType: 'order.created',
    endpointId: endpoint.id,
    accountId: account,
    status: index % 2 === 0 ? 'delivered' : 'failed',
    nextAttempt: 2,
    nextAttemptAt: testEpoch,
    lastAllowedAttempt: 5,
    ladderStart: 1,
    deferrals: 0,
    attempts: [],
    createdAt: new Date(testEpoch + index * 1000).toISOString(),
  }));
  // One BatchWriteItem at a time: a shared DynamoDB Local under load answers a burst slowly.
  for (let start = 0; start < count; start += 25) {
    await deps.deliveries.createMany(deliveries.slice(start, start + 25), { mayExist: false });
  }
  return { account, endpoint, ids: deliveries.map((delivery) => delivery.id).reverse() };
}

/** A page of the list, and what reading it cost. */
async function costOf(account: string, endpointId: string, request: PageRequest) {
  calls = [];
  const page = await listDeliveries(deps, account, endpointId, {}, request);
  const cost = calls;
  calls = undefined;
  return { page, cost };
}

describe('a list of deliveries', { timeout: 300_000 }, () => {
  let small: Awaited<ReturnType<typeof endpointWith>>;
  let large: Awaited<ReturnType<typeof endpointWith>>;

  beforeAll(async () => {
    small = await endpointWith(10);
    large = await endpointWith(3000);
  }, 300_000);

  it('of 3,000 costs the same DynamoDB calls and items read as a list of 10', async () => {
    const ofSmall = await costOf(small.account, small.endpoint.id, { page: 1, perPage: 5 });
    const ofLarge = await costOf(large.account, large.endpoint.id, { page: 1, perPage: 5 });

    expect(ofLarge.cost).toEqual(ofSmall.cost);
    // The endpoint's item, the page and one item past it, then the page's attempt items by key
    // (these deliveries have none recorded).
    expect(ofLarge.cost).toEqual([
      { operation: 'GetItem', read: 1 },
      { operation: 'Query', read: 6 },
      { operation: 'BatchGetItem', read: 0 },
    ]);
    expect(ofLarge.page.items.map((delivery) => delivery.id)).toEqual(large.ids.slice(0, 5));
    expect(ofSmall.page.items.map((delivery) => delivery.id)).toEqual(small.ids.slice(0, 5));
  });

  it('reads a page deep in the list by cursor at the cost of the first', async () => {
    const first = await costOf(large.account, large.endpoint.id, { page: 1, perPage: 50 });
    let cursor = first.page.next;
    let page = first.page;
    for (let turn = 0; turn < 20; turn++) {
      page = await listDeliveries(
        deps,
        large.account,
        large.endpoint.id,
        {},
        {
          page: 1,
          perPage: 50,
          cursor,
        },
      );
      cursor = page.next;
    }
    const deep = await costOf(large.account, large.endpoint.id, {
      page: 1,
      perPage: 50,
      cursor,
    });

    expect(deep.cost).toEqual(first.cost);
    expect(deep.page.page).toBe(22);
    expect(deep.page.items.map((delivery) => delivery.id)).toEqual(
      large.ids.slice(21 * 50, 22 * 50),
    );
    // Not the last page: the total says at least one more follows.
    expect(deep.page.total).toBe(22 * 50 + 1);
  });

  it('walks to the end by cursor, every delivery once, and the last page has no cursor', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let last: Awaited<ReturnType<typeof listDeliveries>> | undefined;
    do {
      last = await listDeliveries(
        deps,
        large.account,
        large.endpoint.id,
        {},
        {
          page: 1,
          perPage: 100,
          cursor,
        },
      );
      seen.push(...last.items.map((delivery) => delivery.id));
      cursor = last.next;
    } while (cursor !== undefined);

    expect(seen).toEqual(large.ids);
    expect(last.total).toBe(3000);
  });

  it('answers page numbers as before, and pages a filtered list', async () => {
    const second = await listDeliveries(
      deps,
      small.account,
      small.endpoint.id,
      {},
      {
        page: 2,
        perPage: 4,
      },
    );
    const failed = await listDeliveries(
      deps,
      large.account,
      large.endpoint.id,
      { status: 'failed' },
      { page: 1, perPage: 10 },
    );

    expect(second.items.map((delivery) => delivery.id)).toEqual(small.ids.slice(4, 8));
    expect(second.page).toBe(2);
    expect(failed.items).toHaveLength(10);
    expect(failed.items.every((delivery) => delivery.status === 'failed')).toBe(true);
    expect(failed.next).toBeDefined();
  });
});

describe('a cursor', { timeout: 60_000 }, () => {
  it('taken from one account’s endpoint and replayed on another’s reads nothing of the first', async () => {
    const victim = await endpointWith(30);
    const attacker = await endpointWith(30);
    const stolen = (
      await listDeliveries(deps, victim.account, victim.endpoint.id, {}, { page: 1, perPage: 5 })
    ).next;

    const replayed = await listDeliveries(
      deps,
      attacker.account,
      attacker.endpoint.id,
      {},
      {
        page: 1,
        perPage: 30,
        cursor: stolen,
      },
    );

    const victims = new Set(victim.ids);
    expect(replayed.items.length).toBeGreaterThan(0);
    expect(replayed.items.every((delivery) => !victims.has(delivery.id))).toBe(true);
    expect(replayed.items.every((delivery) => delivery.endpointId === attacker.endpoint.id)).toBe(
      true,
    );
    // The victim's endpoint under the attacker's account is not found, cursor or not.
    await expect(
      listDeliveries(
        deps,
        attacker.account,
        victim.endpoint.id,
        {},
        {
          page: 1,
          perPage: 5,
          cursor: stolen,
        },
      ),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('forged to name another endpoint’s partition, or malformed, is refused as foreign', async () => {
    const victim = await endpointWith(3);
    const attacker = await endpointWith(3);
    const encode = (content: unknown) =>
      Buffer.from(JSON.stringify(content), 'utf8').toString('base64url');
    const forged = [
      'not-a-cursor',
      encode({ n: 0 }),
      encode({ k: { pk: 'x', sk: '#', gsi1sk: 'y' }, n: -1 }),
      encode({ k: { pk: 'x', sk: '#', gsi1sk: 'y' }, n: 2_000_000_000 }),
      // The victim's partition named in the cursor: not a key attribute a cursor may hold.
      encode({
        k: {
          pk: `DELIVERY#${victim.ids[0]}`,
          sk: '#',
          gsi1pk: `ENDPOINT_DELIVERIES#${victim.endpoint.id}`,
          gsi1sk: '9999',
        },
        n: 0,
      }),
      encode({ k: { pk: 'x', sk: '#', gsi1sk: 7 }, n: 0 }),
    ];

    for (const cursor of forged) {
      await expect(
        listDeliveries(
          deps,
          attacker.account,
          attacker.endpoint.id,
          {},
          {
            page: 1,
            perPage: 5,
            cursor,
          },
        ),
        cursor,
      ).rejects.toMatchObject({ reason: 'foreignCursor' });
    }
  });

  it('outside the window it is used with is refused, not a server error', async () => {
    const { account, endpoint, ids } = await endpointWith(6);
    const early = await listDeliveries(deps, account, endpoint.id, {}, { page: 1, perPage: 5 });
    expect(early.next).toBeDefined();
    const windowAfterIt = { createdAfter: new Date(testEpoch + 5000).toISOString() };

    await expect(
      listDeliveries(deps, account, endpoint.id, windowAfterIt, {
        page: 1,
        perPage: 5,
        cursor: early.next,
      }),
    ).rejects.toBeInstanceOf(Refusal);
    expect(ids).toHaveLength(6);
  });
});
