import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient, uniquePhone } from './accounts-support.js';

/**
 * Whoever does not hold the inbox or the phone must not be able to keep its owner from using a
 * code (docs/otp.md, "Budgets per source"), and one signed-in account must not be able to spend
 * the texts that everybody's sign-in needs ("Generic codes per account"). Each attack as a client
 * could make it, against the service as `npm start` runs it: the owner calls from 127.0.0.1, the
 * stranger from other loopback addresses (another source IP for the service).
 */

const smsPerHour = 20;
let service: LocalService;
let api: AccountClient;

beforeAll(async () => {
  service = await startLocalService({ SMS_MAX_PER_HOUR: String(smsPerHour) });
  api = new AccountClient(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

const stranger = '127.0.3.1';

/** A fresh clock hour, so the hourly counts cannot start again halfway through a test. */
async function startOfNextHour(): Promise<void> {
  const now = await api.advanceClock(0);
  await api.advanceClock((3_600_000 - (now % 3_600_000)) / 1000);
}

/** Waits until `email` has been sent `count` messages (queued work is done off the request path). */
const sentToOwner = (email: string, count: number) =>
  eventually(async () => {
    const sent = (await api.outbox(email)).length;
    expect(sent).toBeLessThanOrEqual(count);
    return sent === count ? sent : undefined;
  });
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('a stranger guessing the owner’s codes', { timeout: 60_000 }, () => {
  it('spends only its own attempts: the owner then resets the password with the code in hand', async () => {
    const { email } = await api.verifiedAccount();
    await api.post('/auth/forgot-password', { email });
    const code = await api.codeFor(email);

    const guesses = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      const body = { email, otp: wrongCode(code), new_password: 'stranger chosen 123' };
      guesses.push(await api.call('POST', '/auth/reset-password-otp', { body, from: stranger }));
    }
    const reset = await api.post('/auth/reset-password-otp', {
      email,
      otp: code,
      new_password: 'owner chosen 123',
    });

    expect(guesses.map((guess) => guess.status)).toEqual([400, 400, 400, 400, 429, 429]);
    expect(guesses[4]!.body.error.code).toBe('too_many_attempts');
    expect(reset.status).toBe(200);
    expect((await api.login(email, 'owner chosen 123')).access_token).toBeTruthy();
  });

  it('spends only its own attempts at an SMS sign-in code: the owner signs in with it', async () => {
    const { phone } = await api.accountWithPhone();
    await api.post('/otp/send', { phone_number: phone, purpose: 'login' });
    const code = await api.codeFor(phone);

    for (let attempt = 1; attempt <= 5; attempt++) {
      await api.call('POST', '/otp/verify', {
        body: { phone_number: phone, code: wrongCode(code), purpose: 'login' },
        from: stranger,
      });
    }
    const signIn = await api.post('/otp/verify', { phone_number: phone, code, purpose: 'login' });

    expect(signIn.status).toBe(200);
    expect(signIn.body.data.access_token).toBeTruthy();
  });
});

describe('a stranger asking for the owner’s codes', { timeout: 60_000 }, () => {
  it('cannot spend the sends of the owner’s email: the owner’s request is sent, and its code works', async () => {
    await startOfNextHour();
    const { email } = await api.verifiedAccount();
    for (let request = 1; request <= 5; request++) {
      await api.call('POST', '/auth/forgot-password', { body: { email }, from: stranger });
      await api.advanceClock(61);
    }
    // The stranger got three codes sent (its own hourly share) besides the signup's.
    await sentToOwner(email, 1 + 3);

    await api.post('/auth/forgot-password', { email });
    await sentToOwner(email, 1 + 3 + 1);
    const reset = await api.post('/auth/reset-password-otp', {
      email,
      otp: await api.codeFor(email),
      new_password: 'owner chosen 123',
    });

    expect(reset.status).toBe(200);
  });
});

describe('one signed-in account and the service’s texts', { timeout: 120_000 }, () => {
  it('caps an account’s generic codes, and keeps the hour’s last share for sign-in texts', async () => {
    await startOfNextHour();
    const { phone } = await api.accountWithPhone();
    const pumper = (await api.verifiedAccount()).tokens.access_token;
    const sendGeneric = (token: string) =>
      api.post('/otp/send', { phone_number: uniquePhone(), purpose: 'generic' }, token);

    const fromOne = [];
    for (let number = 1; number <= 6; number++) fromOne.push(await sendGeneric(pumper));

    expect(fromOne.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(fromOne[5]!.body.error).toMatchObject({ code: 'rate_limited', details: [] });
    expect(Number(fromOne[5]!.headers.get('retry-after'))).toBeGreaterThan(0);

    // Many accounts together stop at the generic share: 18 of the hour's 20 texts.
    const others = [];
    for (let account = 0; account < 3; account++) {
      const token = (await api.verifiedAccount()).tokens.access_token;
      for (let number = 1; number <= 5; number++) others.push(await sendGeneric(token));
    }
    const paused = others.filter((answer) => answer.status === 429);
    expect(others.length - paused.length).toBe(smsPerHour - 2 - 1 - 5);
    expect(paused[0]!.body.error).toMatchObject({ code: 'rate_limited', details: [] });

    // Sign-in texts still go out.
    const login = await api.post('/otp/send', { phone_number: phone, purpose: 'login' });
    expect(login.status).toBe(200);
    const code = await api.codeFor(phone);
    const signIn = await api.post('/otp/verify', { phone_number: phone, code, purpose: 'login' });
    expect(signIn.status).toBe(200);
  });
});
