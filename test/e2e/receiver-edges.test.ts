import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoInboundAttemptLog } from '../../shared/adapters/dynamo-inbound-attempts.js';
import type { InboundSource } from '../../shared/domain/inbound/model.js';
import {
  gatewayAPaymentEvent,
  gatewayBEvent,
  gatewayBHeader,
  hexHmac,
  messagingNotification,
} from '../domain/inbound-support.js';
import { checkContract } from '../support/contract.js';
import { type LocalService, startLocalService, useServiceTable } from '../support/local-service.js';
import { logLines } from '../support/service-logs.js';
import { AccountClient } from './accounts-support.js';

/**
 * Replays and floods on the receivers (docs/receivers.md, "Decisions"), against the
 * service as `npm start` runs it: a signed body kept past its dedupe record, a flood of unsigned
 * calls, and a signed body too big to store.
 */

const secrets = {
  GATEWAY_A_WEBHOOK_SECRET: 'edges-gateway-a',
  GATEWAY_B_WEBHOOK_SECRET: 'whsec_edges_b',
  MESSAGING_APP_SECRET: 'edges-messaging',
};
const day = 24 * 60 * 60;

let service: LocalService;
let clock: AccountClient;

beforeAll(async () => {
  service = await startLocalService(secrets);
  clock = new AccountClient(service);
  useServiceTable(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

interface Answer {
  status: number;
  body: { success: boolean; data?: Record<string, unknown>; error?: Record<string, unknown> };
}

async function post(path: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const answer = { status: response.status, body: await response.json() };
  checkContract('POST', path, { ...answer, headers: response.headers });
  return answer as Answer;
}

const postA = (body: string) =>
  post('/gateway-a-webhook-listener', body, {
    'x-gateway-a-signature': hexHmac(secrets.GATEWAY_A_WEBHOOK_SECRET, body),
  });
const postB = async (body: string) =>
  post('/gateway-b-webhook', body, {
    'stripe-signature': gatewayBHeader(
      body,
      await clock.advanceClock(0),
      secrets.GATEWAY_B_WEBHOOK_SECRET,
    ),
  });
const postMessaging = (body: string) =>
  post('/messaging', body, {
    'x-hub-signature-256': `sha256=${hexHmac(secrets.MESSAGING_APP_SECRET, body)}`,
  });

/** The audit records of a source received at or after `since` (epoch ms), newest first. */
async function auditedSince(source: InboundSource, since: number) {
  const { attempts } = await dynamoInboundAttemptLog.listBySource(source, { limit: 100 });
  return attempts.filter((attempt) => attempt.receivedAt >= since);
}

/** Seconds since the epoch on the service's clock. */
const serviceSeconds = async () => Math.floor((await clock.advanceClock(0)) / 1000);

describe('a signed event older than the dedupe window', { timeout: 60_000 }, () => {
  it('is refused and audited when a gateway A body is posted again after its record expired', async () => {
    const body = JSON.stringify({
      ...gatewayAPaymentEvent('payment.captured', { id: `pay_${randomUUID()}`, amount: 100 }),
      created_at: await serviceSeconds(),
    });
    const first = await postA(body);
    expect(first.status).toBe(200);

    // The dedupe record lives 35 days; whoever kept the signed body posts it on day 36.
    const later = await clock.advanceClock(36 * day);
    const replay = await postA(body);

    expect(replay.status).toBe(400);
    expect(replay.body.error).toMatchObject({ code: 'invalid_request' });
    const [audited] = await auditedSince('gateway-a', later);
    expect(audited).toMatchObject({
      outcome: 'too_old',
      statusCode: 400,
      eventId: first.body.data?.event_id,
      eventType: 'payment.captured',
    });
  });

  it.each([
    [
      'gateway B',
      'gateway-b',
      (created: number) => postB(JSON.stringify(gatewayBEvent('charge.refunded', {}, created))),
    ],
    [
      'the messaging platform',
      'messaging',
      (created: number) =>
        postMessaging(
          JSON.stringify(
            messagingNotification(`wamid.${randomUUID()}`, `wamid.${randomUUID()}`, created),
          ),
        ),
    ],
  ] as const)(
    'is refused and audited from %s, freshly signed or not',
    async (_sender, source, send) => {
      const since = await clock.advanceClock(0);

      const answer = await send((await serviceSeconds()) - 36 * day);

      expect(answer.status).toBe(400);
      expect((await auditedSince(source, since)).map((attempt) => attempt.outcome)).toEqual([
        'too_old',
      ]);
    },
  );
});

describe('a flood of unsigned calls', { timeout: 60_000 }, () => {
  it('is counted call by call, and only a bounded sample of it is stored', async () => {
    await clock.startOfNextMinute();
    const since = await clock.advanceClock(0);
    const body = JSON.stringify(gatewayBEvent('customer.updated', { id: 'cus_flood' }));

    const statuses = [];
    for (let call = 0; call < 60; call++) {
      statuses.push(
        (await post('/gateway-b-webhook', body, { 'stripe-signature': 't=1,v1=00' })).status,
      );
    }

    expect(new Set(statuses)).toEqual(new Set([401]));
    const stored = await auditedSince('gateway-b', since);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.length).toBeLessThanOrEqual(20);
    const counted = logLines(service).filter(
      (line) =>
        line.Source === 'gateway-b' &&
        line.Outcome === 'invalid_signature' &&
        typeof line.InboundEvents === 'number',
    );
    expect(counted.length).toBeGreaterThanOrEqual(60);
  });
});

describe('a signed body the receiver cannot store', { timeout: 60_000 }, () => {
  it('is a 413 in the envelope, audited, never a 500', async () => {
    const since = await clock.advanceClock(0);
    // About 65,000 four-byte characters in the id: 260 KB, which no key can hold.
    const body = JSON.stringify(
      gatewayBEvent('charge.refunded', {}, await serviceSeconds(), '😀'.repeat(65_000)),
    );

    const answer = await postB(body);

    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({
      success: false,
      error: { code: 'payload_too_large', message: expect.any(String), details: expect.any(Array) },
    });
    expect((await auditedSince('gateway-b', since)).map((attempt) => attempt.outcome)).toEqual([
      'too_large',
    ]);
  });
});
