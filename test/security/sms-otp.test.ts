import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountClient, uniqueEmail, uniquePhone } from '../e2e/accounts-support.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * Attacks on the SMS codes, over HTTP against the service as `npm start` runs it: texting numbers
 * without an account (toll fraud), confirming a number for someone else, and signing in by SMS
 * with a phone that nobody proved (docs/accounts.md, "Identity lifecycle"; docs/otp.md,
 * "Decisions").
 */

let service: LocalService;
let api: AccountClient;

beforeAll(async () => {
  service = await startLocalService({ SMS_ALLOWED_COUNTRIES: 'US' });
  api = new AccountClient(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

const password = 'correct horse battery';

/** The login codes texted to a number (its verification code, if any, aside). */
const loginCodesTo = async (phone: string) =>
  (await api.outbox(phone)).filter((message) => /is your login code/.test(message.text));

/** The statuses of login attempts with the codes an attacker would try first. */
async function loginGuesses(phone: string): Promise<number[]> {
  const guesses = ['000000', '123456'];
  const statuses = [];
  for (const code of guesses) {
    statuses.push(
      (await api.post('/otp/verify', { phone_number: phone, code, purpose: 'login' })).status,
    );
  }
  return statuses;
}

describe('generic SMS codes: only for a signed-in user, bound to that user', {
  timeout: 60_000,
}, () => {
  it('refuses to text a generic code to a caller without an access token', async () => {
    const phone = uniquePhone();

    const answer = await api.post('/otp/send', { phone_number: phone, purpose: 'generic' });

    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('unauthorized');
    expect(await api.outbox(phone)).toEqual([]);
  });

  it('refuses to check a generic code for a caller without an access token', async () => {
    const { accessToken: token } = await api.accountWithPendingPhone();
    const phone = uniquePhone();
    await api.post('/otp/send', { phone_number: phone, purpose: 'generic' }, token);

    const answer = await api.post('/otp/verify', {
      phone_number: phone,
      code: await api.codeFor(phone),
      purpose: 'generic',
    });

    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('unauthorized');
  });

  it('does not let another signed-in user confirm a number with a code sent for someone else', async () => {
    const owner = await api.accountWithPendingPhone();
    const other = await api.accountWithPendingPhone();
    const phone = uniquePhone();
    const sent = await api.post(
      '/otp/send',
      { phone_number: phone, purpose: 'generic' },
      owner.accessToken,
    );
    expect(sent.status).toBe(200);
    const code = await api.codeFor(phone);
    const verify = (token: string) =>
      api.post('/otp/verify', { phone_number: phone, code, purpose: 'generic' }, token);

    const byOther = await verify(other.accessToken);
    const byOwner = await verify(owner.accessToken);

    expect(byOther.status).toBe(400);
    expect(byOther.body.error.code).toBe('invalid_otp');
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.data).toEqual({ verified: true, phone_number: phone, purpose: 'generic' });
  });
});

describe('SMS sign-in needs a phone its account verified', { timeout: 60_000 }, () => {
  it("texts no login code to an active account's unverified phone, and signs nobody in with it", async () => {
    const { phone } = await api.accountWithPendingPhone();

    const sent = await api.post('/otp/send', { phone_number: phone, purpose: 'login' });

    expect(sent.status).toBe(200);
    expect(await loginCodesTo(phone)).toEqual([]);
    expect(await loginGuesses(phone)).toEqual([400, 400]);
  });

  it("does not sign a stranger in to the owner's account through the phone the stranger signed up with", async () => {
    // The stranger signs up first with the victim's email and the stranger's own phone.
    const victimEmail = uniqueEmail();
    const strangerPhone = uniquePhone();
    await api.post('/auth/signup', {
      name: 'Stranger',
      email: victimEmail,
      phone: strangerPhone,
      password: 'stranger password 1',
    });
    // The victim signs up with their email and activates the account from their inbox.
    await api.post('/auth/signup', { name: 'Victim', email: victimEmail, password });
    const activated = await api.post('/auth/verify-signup-otp', {
      email: victimEmail,
      otp: await api.codeFor(victimEmail),
    });
    expect(activated.status).toBe(200);

    const sent = await api.post('/otp/send', { phone_number: strangerPhone, purpose: 'login' });
    const smsToStranger = await loginCodesTo(strangerPhone);
    const code = /\b(\d{6})\b/.exec(smsToStranger[0]?.text ?? '')?.[1] ?? '000000';
    const signIn = await api.post('/otp/verify', {
      phone_number: strangerPhone,
      code,
      purpose: 'login',
    });

    expect(sent.status).toBe(200);
    expect(smsToStranger).toEqual([]);
    expect(signIn.status).toBe(400);
    expect(signIn.body.error.code).toBe('invalid_otp');
  });

  it('answers sendOtp login alike for unknown, unverified and verified phones, texting only the verified one', async () => {
    const unknown = uniquePhone();
    const { phone: unverified } = await api.accountWithPendingPhone();
    const { phone: verified } = await api.accountWithPhone();

    const answers = [];
    for (const phone of [unknown, unverified, verified]) {
      answers.push(await api.post('/otp/send', { phone_number: phone, purpose: 'login' }));
    }

    const seen = answers.map((answer) => ({
      status: answer.status,
      body: { ...answer.body, data: { ...answer.body.data, phone_number: '(the number sent)' } },
      numberEchoed: answer.body.data?.phone_number,
    }));
    expect(seen.map((answer) => answer.numberEchoed)).toEqual([unknown, unverified, verified]);
    expect(seen[0]!.status).toBe(200);
    expect(seen[1]).toEqual({ ...seen[0], numberEchoed: unverified });
    expect(seen[2]).toEqual({ ...seen[0], numberEchoed: verified });
    expect(await loginCodesTo(unknown)).toEqual([]);
    expect(await loginCodesTo(unverified)).toEqual([]);
    expect(await loginCodesTo(verified)).toHaveLength(1);
  });
});
