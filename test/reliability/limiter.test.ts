import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountClient } from '../e2e/accounts-support.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * The per-client limit under concurrency (docs/reliability.md, "Load and soak"): a client at 150 %
 * of its limit, all at once, gets exactly the limit accepted in each window — the atomic counter neither lets one more
 * through nor refuses one too many. `npm run soak` holds the same with the requests spread over
 * real minutes, beside the rest of the traffic.
 */

const limit = 100;
let service: LocalService;
let client: AccountClient;

beforeAll(async () => {
  service = await startLocalService({ RATE_LIMIT_PER_MINUTE: String(limit) });
  client = new AccountClient(service);
});

afterAll(async () => {
  await service?.stop();
});

/** 150 % of the limit at once from one client; answers how many got through and how many 429. */
async function burst(
  from: string,
): Promise<{ accepted: number; refused: number; other: number[] }> {
  const answers = await Promise.all(
    Array.from({ length: limit * 1.5 }, () => client.call('GET', '/event-types', { from })),
  );
  const statuses = answers.map((answer) => answer.status);
  return {
    accepted: statuses.filter((status) => status === 200).length,
    refused: statuses.filter((status) => status === 429).length,
    other: statuses.filter((status) => status !== 200 && status !== 429),
  };
}

describe('the per-client rate limit under concurrency', () => {
  it('accepts exactly the limit of 150 % sent at once, in each of two windows', async () => {
    await client.startOfNextMinute();
    const first = await burst('127.0.0.77');
    await client.advanceClock(60);
    const second = await burst('127.0.0.77');

    expect(first).toEqual({ accepted: limit, refused: limit / 2, other: [] });
    expect(second).toEqual({ accepted: limit, refused: limit / 2, other: [] });
  }, 60_000);
});
