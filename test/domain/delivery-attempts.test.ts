import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamo, getItem, queryAll } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import {
  getDelivery,
  listDeliveries,
  retryDelivery,
} from '../../shared/domain/webhooks/deliveries.js';
import { publishEvent } from '../../shared/domain/webhooks/publish-event.js';
import { useFreshTable } from '../support/table.js';
import { accountWithEndpoint, drain, type Harness, harness } from './webhooks-harness.js';

/**
 * Attempts are items of their own beside their delivery: the delivery item (and its index
 * entries, rewritten at every move) stays one size however often it is tried, and deliveries
 * stored when the attempts were a list on the item still show them.
 */

let deps: Harness;

beforeAll(async () => {
  await useFreshTable();
});

beforeEach(() => {
  deps = harness();
});

/** The bytes DynamoDB counts for an item, near enough: names and values as JSON text. */
const sizeOf = (item: Record<string, unknown> | undefined) =>
  Buffer.byteLength(JSON.stringify(item ?? {}), 'utf8');

async function failingDelivery() {
  const { account, endpoint } = await accountWithEndpoint(deps, 'att');
  await publishEvent(deps, {
    type: 'order.created',
    accountId: account,
    data: { order_id: 'ord_1', status: 'placed', total: 10, currency: 'EUR' },
  });
  const page = await listDeliveries(deps, account, endpoint.id, {}, { page: 1, perPage: 5 });
  return { account, endpoint, delivery: page.items[0]! };
}

describe('attempts as items of their own', () => {
  it('keep the delivery item under 1 KB through five attempts with 1 KiB bodies', async () => {
    deps.sender = {
      send: async () => ({ status: 500, latencyMs: 3, body: 'x'.repeat(1024) }),
    };
    const { account, endpoint, delivery } = await failingDelivery();
    await drain(deps);

    const item = await getItem(keys.delivery(delivery.id));
    const shown = await getDelivery(deps, account, endpoint.id, delivery.id);
    const listed = await listDeliveries(deps, account, endpoint.id, {}, { page: 1, perPage: 5 });
    const own = await queryAll({
      TableName: process.env.TABLE_NAME,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.deliveryAttempts(delivery.id).pk,
        ':prefix': keys.deliveryAttempts(delivery.id).skPrefix,
      },
    });

    expect(item?.status).toBe('failed');
    expect(sizeOf(item)).toBeLessThan(1024);
    expect(own).toHaveLength(5);
    // Each attempt: its 1 KiB of body and the headers it was sent with (signatures included).
    expect(Math.max(...own.map(sizeOf))).toBeLessThan(2048);
    expect(shown.delivery.attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(shown.delivery.attempts.every((attempt) => attempt.responseBody?.length === 1024)).toBe(
      true,
    );
    expect(listed.items[0]?.attempts).toEqual(shown.delivery.attempts);
  });

  it('still shows the attempts of a delivery stored with them as a list, and the ones after', async () => {
    const { account, endpoint, delivery } = await failingDelivery();
    deps.queue.messages.splice(0);
    // The delivery as code that kept attempts on the item left it: failed, two records in a list.
    const stored = await getItem(keys.delivery(delivery.id));
    const legacy = [1, 2].map((attempt) => ({
      attempt,
      attempted_at: new Date(Date.UTC(2099, 0, attempt)).toISOString(),
      outcome: 'failed',
      response_status: 502,
      latency_ms: 7,
      response_body: `old ${attempt}`,
    }));
    const { gsi2pk: _, gsi2sk: __, ...unlisted } = stored ?? {};
    await dynamo().send(
      new PutCommand({
        TableName: process.env.TABLE_NAME,
        Item: {
          ...unlisted,
          status: 'failed',
          next_attempt: 3,
          last_allowed_attempt: 2,
          attempts: legacy,
        },
      }),
    );

    const before = await getDelivery(deps, account, endpoint.id, delivery.id);
    deps.sender = { send: async () => ({ status: 200, latencyMs: 3 }) };
    await retryDelivery(deps, account, endpoint.id, delivery.id);
    await drain(deps);
    const after = await getDelivery(deps, account, endpoint.id, delivery.id);
    const listed = await listDeliveries(deps, account, endpoint.id, {}, { page: 1, perPage: 5 });

    expect(before.delivery.attempts.map((attempt) => attempt.responseBody)).toEqual([
      'old 1',
      'old 2',
    ]);
    expect(after.delivery.status).toBe('delivered');
    expect(after.delivery.attempts.map((attempt) => [attempt.attempt, attempt.outcome])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'succeeded'],
    ]);
    expect(listed.items[0]?.attempts).toEqual(after.delivery.attempts);
  });
});
