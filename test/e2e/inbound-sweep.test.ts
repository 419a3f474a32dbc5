import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dynamoInboundEventStore,
  inboundEventState,
} from '../../shared/adapters/dynamo-inbound-events.js';
import { findSubscription } from '../../shared/adapters/dynamo-subscriptions.js';
import { inboundSweepGraceMs } from '../../shared/domain/inbound/sweep-events.js';
import { gatewayBEvent } from '../domain/inbound-support.js';
import { type LocalService, startLocalService, useServiceTable } from '../support/local-service.js';

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
  useServiceTable(service);
});

afterAll(async () => {
  await service?.stop();
});

/** Moves the service's clock; answers its new "now" (epoch ms). */
async function advanceClock(seconds: number): Promise<number> {
  const response = await fetch(`${service.origin}/_local/clock?advance_seconds=${seconds}`, {
    method: 'POST',
  });
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: { now: string } };
  return Date.parse(data.now);
}

/** Polls until `check` returns something, or fails after the deadline. */
async function eventually<T>(check: () => Promise<T | undefined>, deadlineMs = 30_000): Promise<T> {
  const giveUpAt = Date.now() + deadlineMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > giveUpAt) throw new Error(`nothing after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the local runtime’s inbound sweeper', () => {
  it('processes an accepted event that never reached the queue once it is overdue', async () => {
    const account = `usr_${randomUUID()}`;
    const subscriptionId = `sub_${randomUUID()}`;
    const event = gatewayBEvent('customer.subscription.created', {
      id: subscriptionId,
      object: 'subscription',
      status: 'trialing',
      metadata: { account_id: account },
      items: { data: [{ price: { id: 'price_basic' }, current_period_end: 1767225600 }] },
    });
    // What a receiver leaves behind when its SendMessage failed and the sender never retried:
    // the stored `received` record, and no message (a queue failure cannot be caused over HTTP).
    const now = await advanceClock(0);
    await dynamoInboundEventStore.record(
      {
        source: 'gateway-b',
        eventId: event.id,
        type: event.type,
        route: 'subscription',
        receivedAt: now,
        rawBody: Buffer.from(JSON.stringify(event), 'utf8'),
      },
      now,
    );

    await advanceClock(inboundSweepGraceMs / 1000 + 1);

    // The worker writes the subscription, then marks the event processed: wait for the latter.
    const state = await eventually(async () => {
      const current = await inboundEventState('gateway-b', event.id);
      return current?.status === 'processed' ? current : undefined;
    });
    expect(state).toEqual({
      status: 'processed',
      result: `subscription ${subscriptionId} updated`,
    });
    expect(await findSubscription(account, subscriptionId)).toMatchObject({ status: 'trialing' });
  });
});
