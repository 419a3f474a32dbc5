import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountClient, uniquePhone } from '../e2e/accounts-support.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * SMS spend is bounded service-wide (docs/otp.md, "Decisions"): past
 * SMS_MAX_PER_HOUR texts in a clock hour the service sends none, whoever asks and whatever the
 * number — the brake on SMS pumping that per-number and per-client limits cannot be, since a
 * pumper spreads over many numbers and addresses. Against the service as `npm start` runs it.
 */

const cap = 5;
let service: LocalService;
let api: AccountClient;

beforeAll(async () => {
  service = await startLocalService({ SMS_MAX_PER_HOUR: String(cap) });
  api = new AccountClient(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

describe('the service-wide SMS cap', { timeout: 60_000 }, () => {
  it('refuses texts past SMS_MAX_PER_HOUR with one 429 for every target, warning before the cap', async () => {
    // Start a fresh clock hour, so the hour cannot end halfway through the test.
    const now = await api.advanceClock(0);
    await api.advanceClock((3_600_000 - (now % 3_600_000)) / 1000);
    const { tokens } = await api.verifiedAccount();
    const phones = Array.from({ length: cap + 2 }, () => uniquePhone());

    const answers = [];
    for (const phone of phones) {
      answers.push(
        await api.post(
          '/otp/send',
          { phone_number: phone, purpose: 'generic' },
          tokens.access_token,
        ),
      );
    }

    expect(answers.map((answer) => answer.status)).toEqual([...Array(cap).fill(200), 429, 429]);
    const [first, second] = answers.slice(cap);
    expect(first!.body).toEqual(second!.body);
    expect(first!.body.error).toMatchObject({ code: 'rate_limited', details: [] });
    expect(JSON.stringify(first!.body)).not.toContain(phones[cap]!.slice(2));
    expect(Number(first!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.outbox(phones[cap]!)).length).toBe(0);
    // The alarm's log line came out before the cap was reached (at 80 %: the 4th of 5 texts).
    expect(service.output()).toMatch(
      /"message":"service-wide SMS count reached its alarm threshold"/,
    );
    const login = await api.post('/otp/send', { phone_number: uniquePhone(), purpose: 'login' });
    expect(login.status).toBe(429);
    expect(login.body).toEqual(first!.body);
  });
});
