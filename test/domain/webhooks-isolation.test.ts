import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MetricPoint } from '../../shared/domain/metrics.js';
import { attemptDelivery } from '../../shared/domain/webhooks/attempt-delivery.js';
import {
  busyDeferralMs,
  circuitBaseOpenMs,
  circuitThreshold,
  placeLeaseMs,
} from '../../shared/domain/webhooks/endpoint-load.js';
import { registerEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import type { SendOutcome, SignedRequest } from '../../shared/domain/webhooks/ports.js';
import { publishEvent } from '../../shared/domain/webhooks/publish-event.js';
import { eventually } from '../support/eventually.js';
import { recordMetrics } from '../support/metric-recorder.js';
import { useFreshTable } from '../support/table.js';
import { createAccount, type Harness, harness } from './webhooks-harness.js';

/**
 * Isolation per endpoint against DynamoDB Local: the places in flight, the circuit and the
 * owner's rate limit, as an attacker who owns an endpoint would test them.
 */

let deps: Harness;
let accountSeq = 0;

beforeAll(async () => {
  await useFreshTable();
});

beforeEach(() => {
  deps = harness();
});

/** A receiver whose requests stay open until `answerAll` (an endpoint that hangs). */
class HangingReceiver {
  readonly requests: SignedRequest[] = [];
  private readonly waiting: ((outcome: SendOutcome) => void)[] = [];

  send = (request: SignedRequest): Promise<SendOutcome> => {
    this.requests.push(request);
    return new Promise((answer) => this.waiting.push(answer));
  };

  answerAll(outcome: SendOutcome): void {
    for (const answer of this.waiting.splice(0)) answer(outcome);
  }
}

async function endpointWith(events: number, rateLimit?: number) {
  accountSeq += 1;
  const accountId = `usr_iso${accountSeq}_${Date.now()}`;
  await createAccount(accountId, `iso${accountSeq}@example.com`);
  const endpoint = await registerEndpoint(deps, accountId, {
    url: `https://iso${accountSeq}.example/hook`,
    events: ['order.created'],
    rate_limit: rateLimit,
  });
  for (let index = 0; index < events; index++) {
    await publishEvent(deps, {
      type: 'order.created',
      accountId,
      data: { order_id: `ord_${index}`, status: 'placed', total: 1, currency: 'EUR' },
    });
  }
  return { endpoint, messages: deps.queue.messages.splice(0) };
}

/** The reasons of the deferrals counted among `points` (what the dashboard's widget shows). */
const deferralsIn = (points: MetricPoint[]) =>
  points
    .filter((point) => point.name === 'DeliveriesDeferred')
    .map((point) => point.dimensions.Reason);

describe('isolation per endpoint', { timeout: 120_000 }, () => {
  it('lets a hanging endpoint hold at most 10 attempts; the rest go back unmade, for later', async () => {
    const hanging = new HangingReceiver();
    deps.sender = hanging;
    const { messages } = await endpointWith(13);

    const recorded = recordMetrics();
    const running = messages.map((message) => attemptDelivery(deps, message));
    // The three beyond the endpoint's places go back on the queue, unmade.
    await eventually(async () => (deps.queue.messages.length >= 3 ? true : undefined), 90);
    await eventually(async () => (hanging.requests.length >= 10 ? true : undefined), 90);
    expect(hanging.requests).toHaveLength(10);
    for (const message of deps.queue.messages) {
      expect(message.attempt).toBe(1);
      expect(message.delaySeconds * 1000).toBeGreaterThanOrEqual(busyDeferralMs / 2);
      expect(message.delaySeconds * 1000).toBeLessThanOrEqual(busyDeferralMs + 1000);
    }

    hanging.answerAll({ latencyMs: 10_000, error: 'timed out after 10 s' });
    const results = await Promise.all(running);
    recorded.stop();
    expect(results.filter((result) => result === 'deferred')).toHaveLength(3);
    expect(deferralsIn(recorded.points)).toEqual(['busy', 'busy', 'busy']);
    expect(results.filter((result) => result === 'retry_scheduled')).toHaveLength(10);
  });

  it('opens the circuit after 5 timeouts or 5xx in a row: attempts due meanwhile fail without a request', async () => {
    deps.receiver.answer = () => ({ status: 503, latencyMs: 2 });
    const { messages } = await endpointWith(circuitThreshold + 2);

    for (const message of messages.slice(0, circuitThreshold)) {
      expect(await attemptDelivery(deps, message)).toBe('retry_scheduled');
    }
    expect(deps.receiver.requests).toHaveLength(circuitThreshold);

    const shortCircuited = messages[circuitThreshold]!;
    expect(await attemptDelivery(deps, shortCircuited)).toBe('retry_scheduled');
    expect(deps.receiver.requests).toHaveLength(circuitThreshold);
    const record = (await deps.deliveries.get(shortCircuited.deliveryId))?.attempts.at(-1);
    expect(record).toMatchObject({ attempt: 1, outcome: 'failed' });
    expect(record?.error).toMatch(/circuit is open after 5 timeouts or 5xx/);

    // Once the circuit's time is over, one attempt probes; its success closes the circuit.
    deps.clock.advance(circuitBaseOpenMs);
    deps.receiver.answer = () => ({ status: 200, latencyMs: 2 });
    expect(await attemptDelivery(deps, messages[circuitThreshold + 1]!)).toBe('delivered');
    expect(deps.receiver.requests).toHaveLength(circuitThreshold + 1);
  });

  it('counts a 4xx as an answer: it fails the attempt but never opens the circuit', async () => {
    deps.receiver.answer = () => ({ status: 410, latencyMs: 2 });
    const { messages } = await endpointWith(circuitThreshold + 1);
    for (const message of messages) await attemptDelivery(deps, message);
    expect(deps.receiver.requests).toHaveLength(circuitThreshold + 1);
  });

  it("starts at most the owner's rate_limit a second and puts the rest back until the rate allows", async () => {
    const { messages } = await endpointWith(5, 2);

    const recorded = recordMetrics();
    const results = await Promise.all(messages.map((message) => attemptDelivery(deps, message)));
    recorded.stop();
    expect(results.filter((result) => result === 'delivered')).toHaveLength(2);
    expect(results.filter((result) => result === 'deferred')).toHaveLength(3);
    expect(deferralsIn(recorded.points)).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
    expect(deps.receiver.requests).toHaveLength(2);

    // A second later the rate allows two more.
    deps.clock.advance(1_000);
    const again = deps.queue.messages.splice(0);
    const later = await Promise.all(again.map((message) => attemptDelivery(deps, message)));
    expect(later.filter((result) => result === 'delivered')).toHaveLength(2);
  });

  it('gives back the places of workers that died once nothing touched them for a lease', async () => {
    const endpointId = `whk_stale${Date.now()}`;
    const limits = { inFlight: 2 };
    const now = deps.clock.now();
    expect(await deps.loads.admit(endpointId, limits, now)).toEqual({ admitted: true });
    expect(await deps.loads.admit(endpointId, limits, now)).toEqual({ admitted: true });
    // Neither attempt released its place (their workers died).
    expect(await deps.loads.admit(endpointId, limits, now + 1_000)).toEqual({
      admitted: false,
      reason: 'busy',
    });
    expect(await deps.loads.admit(endpointId, limits, now + placeLeaseMs + 1_001)).toEqual({
      admitted: true,
    });
    // That attempt is now the only one in flight: one more place, then busy.
    expect(await deps.loads.admit(endpointId, limits, now + placeLeaseMs + 1_002)).toEqual({
      admitted: true,
    });
    expect(await deps.loads.admit(endpointId, limits, now + placeLeaseMs + 1_003)).toMatchObject({
      admitted: false,
    });
  });

  it("keeps one endpoint's spent places and rate from touching another endpoint", async () => {
    const hanging = new HangingReceiver();
    deps.sender = hanging;
    const busy = await endpointWith(10);
    const running = busy.messages.map((message) => attemptDelivery(deps, message));
    await eventually(async () => (hanging.requests.length >= 10 ? true : undefined), 90);

    const other = await endpointWith(1);
    const result = attemptDelivery(deps, other.messages[0]!);
    await eventually(async () => (hanging.requests.length >= 11 ? true : undefined), 90);
    expect(hanging.requests.at(-1)?.url).toBe(other.endpoint.url);
    hanging.answerAll({ status: 200, latencyMs: 5 });
    expect(await result).toBe('delivered');
    await Promise.all(running);
  });
});
