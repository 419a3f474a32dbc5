import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoInboundAttemptLog } from '../../shared/adapters/dynamo-inbound-attempts.js';
import { inboundEventState } from '../../shared/adapters/dynamo-inbound-events.js';
import { gatewayAPaymentEvent, hexHmac } from '../domain/inbound-support.js';
import { AccountClient } from '../e2e/accounts-support.js';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService, useServiceTable } from '../support/local-service.js';

/**
 * Replays of one signed gateway A body, against the service as `npm start` runs it. The event-id
 * headers are not covered by the signature: whoever holds one signed body (a log, a proxy, a
 * leaked request) can post it again under any id. The dedupe key must be what was signed.
 */

const secret = 'gateway-a-replay-secret';

interface Acknowledged {
  data: { duplicate: boolean; event_id: string };
}
let service: LocalService;
let client: AccountClient;

beforeAll(async () => {
  service = await startLocalService({ GATEWAY_A_WEBHOOK_SECRET: secret });
  client = new AccountClient(service);
  useServiceTable(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

describe('gateway A replays', { timeout: 60_000 }, () => {
  it('processes one signed body posted with four different event-id headers once', async () => {
    const { tokens } = await client.verifiedAccount();
    const endpoint = await client.post(
      '/webhooks',
      {
        url: `${service.inboxOrigin}/inbox/replay-${randomUUID().slice(0, 8)}`,
        events: ['payment.successful'],
      },
      tokens.access_token,
    );
    expect(endpoint.status).toBe(201);
    const body = JSON.stringify(
      gatewayAPaymentEvent('payment.captured', {
        id: `pay_${randomUUID().slice(0, 12)}`,
        amount: 49900,
        currency: 'INR',
        notes: { account_id: tokens.user.id },
      }),
    );
    const signature = { 'x-gateway-a-signature': hexHmac(secret, body) };
    const claimedIds = ['evt_one', 'evt_two', 'evt_three', 'evt_four'].map(
      (id) => `${id}_${randomUUID().slice(0, 8)}`,
    );
    const idHeaders: Record<string, string>[] = [
      { 'x-gateway-a-event-id': claimedIds[0]! },
      { 'X-Gateway-A-Event-Id': claimedIds[1]! },
      { 'x-razorpay-event-id': claimedIds[2]! },
      { 'x-gateway-a-event-id': claimedIds[3]!, 'x-razorpay-event-id': claimedIds[0]! },
    ];

    const answers: { status: number; body: Acknowledged }[] = [];
    for (const idHeader of idHeaders) {
      const response = await fetch(`${service.baseUrl}/gateway-a-webhook-listener`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signature, ...idHeader },
        body,
      });
      answers.push({ status: response.status, body: (await response.json()) as Acknowledged });
    }

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((answer) => answer.body.data.duplicate)).toEqual([false, true, true, true]);
    const eventIds = new Set(answers.map((answer) => answer.body.data.event_id));
    expect(eventIds.size).toBe(1);
    const [eventId] = eventIds;
    await eventually(async () =>
      (await inboundEventState('gateway-a', eventId!))?.status === 'processed' ? true : undefined,
    );
    const deliveries = await eventually(async () => {
      const list = await client.call('GET', `/webhooks/${endpoint.body.data.id}/deliveries`, {
        token: tokens.access_token,
      });
      return list.body.data.length > 0 ? list.body.data : undefined;
    });
    expect(deliveries.map((delivery: { event_type: string }) => delivery.event_type)).toEqual([
      'payment.successful',
    ]);

    // Each claimed id is kept with its call, for audit only.
    const attempts = (await dynamoInboundAttemptLog.listBySource('gateway-a', { limit: 50 }))
      .attempts;
    const ofThisBody = attempts.filter((attempt) => attempt.eventId === eventId);
    expect(ofThisBody.map((attempt) => attempt.outcome).sort()).toEqual([
      'accepted',
      'duplicate',
      'duplicate',
      'duplicate',
    ]);
    expect(ofThisBody.map((attempt) => attempt.senderEventId).sort()).toEqual(
      [...claimedIds].sort(),
    );
  });
});
