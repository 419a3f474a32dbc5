import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AccountClient, uniquePhone } from '../e2e/accounts-support.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * Who the rate limiter counts, attacked over HTTP through the local runtime as `npm start` runs
 * it: a client that sends a fresh `x-api-key` with every request must still be one client
 * (docs/api-contract.md, "Who the rate limiter counts"). Each test sends from a loopback address of
 * its own, which the runtime reports as the source IP, so the tests do not share windows.
 */

const perMinute = 15;
let service: LocalService;
let api: AccountClient;

beforeAll(async () => {
  service = await startLocalService({ RATE_LIMIT_PER_MINUTE: String(perMinute) });
  api = new AccountClient(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

// Every test fills a window: it must not be split in two by a minute boundary.
beforeEach(async () => {
  await api.startOfNextMinute();
});

const withFreshKey = () => ({ 'x-api-key': randomUUID() });

describe('the per-client rate limit', { timeout: 60_000 }, () => {
  it('counts 20 requests with 20 different x-api-key values as one client', async () => {
    const answers = [];
    for (let request = 0; request < 20; request++) {
      answers.push(
        await api.call('GET', '/event-types', { headers: withFreshKey(), from: '127.0.0.2' }),
      );
    }

    expect(answers.map((answer) => answer.status)).toEqual([
      ...Array(perMinute).fill(200),
      ...Array(20 - perMinute).fill(429),
    ]);
    expect(answers.map((answer) => answer.headers.get('x-ratelimit-remaining'))).toEqual(
      Array.from({ length: 20 }, (_, index) => String(Math.max(0, perMinute - 1 - index))),
    );
    expect(answers[perMinute]!.body.error.code).toBe('rate_limited');
    expect(Number(answers[perMinute]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits phone-number lookups to 10 a minute per client, whatever x-api-key it sends', async () => {
    const statuses = [];
    for (let lookup = 0; lookup < 20; lookup++) {
      const answer = await api.call(
        'GET',
        `/verify/phone?phone=${encodeURIComponent(uniquePhone())}`,
        { headers: withFreshKey(), from: '127.0.0.3' },
      );
      statuses.push(answer.status);
    }

    expect(statuses).toEqual([...Array(10).fill(200), ...Array(10).fill(429)]);
  });

  it('counts another source address as another client', async () => {
    for (let request = 0; request < perMinute; request++) {
      await api.call('GET', '/event-types', { from: '127.0.0.4' });
    }

    const spent = await api.call('GET', '/event-types', { from: '127.0.0.4' });
    const other = await api.call('GET', '/event-types', { from: '127.0.0.5' });

    expect(spent.status).toBe(429);
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe(String(perMinute - 1));
  });
});
