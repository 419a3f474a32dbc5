import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient, type Answer, uniqueEmail, uniquePhone } from './accounts-support.js';

let service: LocalService;
let api: AccountClient;

beforeAll(async () => {
  service = await startLocalService({ SMS_ALLOWED_COUNTRIES: 'US,GB' });
  api = new AccountClient(service);
});

afterAll(async () => {
  await service?.stop();
});

/**
 * Each call from a loopback address of its own: another client for the per-client limits (they
 * count the source address), so tests do not share windows.
 */
let clients = 0;
const newClientAddress = () => `127.0.1.${++clients}`;
const asClient = (method: string, path: string, body?: unknown, token?: string): Promise<Answer> =>
  api.call(method, path, { body, token, from: newClientAddress() });

/** The access token of a fresh signed-in user, for generic codes. */
const signedIn = async () => (await api.verifiedAccount()).tokens.access_token;

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('login by SMS code', () => {
  it('texts a code to the verified phone of an active account and signs in with it', async () => {
    const { phone, email } = await api.accountWithPhone();

    const sent = await api.post('/otp/send', { phone_number: phone, purpose: 'login' });
    const code = await api.codeFor(phone);
    const verified = await api.post('/otp/verify', { phone_number: phone, code, purpose: 'login' });

    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({
      phone_number: phone,
      purpose: 'login',
      expires_in: 300,
    });
    expect((await api.outbox(phone))[0]).toMatchObject({ channel: 'sms' });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      user: { email, phone, phone_verified: true },
    });
    const profile = await api.call('GET', '/profile', { token: verified.body.data.access_token });
    expect(profile.body.data).toMatchObject({ phone, phone_verified: true });
  });

  it('accepts a phone in national notation with spaces and answers it in E.164', async () => {
    const { phone } = await api.accountWithPhone();
    const spaced = `+1 (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;

    const sent = await api.post('/otp/send', { phone_number: spaced, purpose: 'login' });

    expect(sent.status).toBe(200);
    expect(sent.body.data.phone_number).toBe(phone);
  });

  it('refuses a reused login code', async () => {
    const { phone } = await api.accountWithPhone();
    await api.post('/otp/send', { phone_number: phone, purpose: 'login' });
    const code = await api.codeFor(phone);
    await api.post('/otp/verify', { phone_number: phone, code, purpose: 'login' });

    const again = await api.post('/otp/verify', { phone_number: phone, code, purpose: 'login' });

    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_otp');
  });

  it('answers a number without an active account as any other, and texts it no login code', async () => {
    const unknown = uniquePhone();
    const email = uniqueEmail();
    const pending = uniquePhone();
    await api.post('/auth/signup', {
      name: 'Pending',
      email,
      phone: pending,
      password: 'correct horse battery',
    });

    const toUnknown = await api.post('/otp/send', { phone_number: unknown, purpose: 'login' });
    const toPending = await api.post('/otp/send', { phone_number: pending, purpose: 'login' });

    for (const answer of [toUnknown, toPending]) {
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({
        purpose: 'login',
        message:
          'If this number is the verified phone of an account, we sent it a 6-digit code by SMS',
        expires_in: 300,
      });
    }
    expect(await api.outbox(unknown)).toEqual([]);
    expect(await api.outbox(pending)).toEqual([]);
  });

  it('does not accept a login code as a generic one, nor the reverse', async () => {
    const { phone, accessToken } = await api.accountWithPhone();
    await api.post('/otp/send', { phone_number: phone, purpose: 'login' });
    const code = await api.codeFor(phone);

    const asGeneric = await api.post(
      '/otp/verify',
      { phone_number: phone, code, purpose: 'generic' },
      accessToken,
    );

    expect(asGeneric.status).toBe(400);
    expect(asGeneric.body.error.code).toBe('invalid_otp');
  });
});

describe('generic SMS codes', () => {
  it('confirms a code for any number for the signed-in user and issues no token', async () => {
    const token = await signedIn();
    const phone = uniquePhone();
    const sent = await api.post('/otp/send', { phone_number: phone, purpose: 'generic' }, token);
    const code = await api.codeFor(phone);

    const verified = await api.post(
      '/otp/verify',
      { phone_number: phone, code, purpose: 'generic' },
      token,
    );

    expect(sent.status).toBe(200);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ verified: true, phone_number: phone, purpose: 'generic' });
  });

  it('burns the code at the 5th wrong attempt and answers 429 with Retry-After', async () => {
    const token = await signedIn();
    const phone = uniquePhone();
    await api.post('/otp/send', { phone_number: phone, purpose: 'generic' }, token);
    const code = await api.codeFor(phone);
    const verify = (guess: string) =>
      api.post('/otp/verify', { phone_number: phone, code: guess, purpose: 'generic' }, token);

    const wrong = [];
    for (let attempt = 1; attempt <= 5; attempt++) wrong.push(await verify(wrongCode(code)));
    const right = await verify(code);

    expect(wrong.slice(0, 4).map((answer) => answer.body.error.code)).toEqual(
      Array(4).fill('invalid_otp'),
    );
    expect(wrong[4]!.status).toBe(429);
    expect(wrong[4]!.body.error.code).toBe('too_many_attempts');
    expect(Number(wrong[4]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.status).toBe(429);
  });

  it('refuses a second code within the cooldown with 429 and Retry-After', async () => {
    const token = await signedIn();
    const phone = uniquePhone();
    await api.post('/otp/send', { phone_number: phone, purpose: 'generic' }, token);

    const again = await api.post('/otp/send', { phone_number: phone, purpose: 'generic' }, token);

    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe('rate_limited');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(again.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('limits requests per phone number to 3 a minute, with that limit in the headers', async () => {
    const token = await signedIn();
    const phone = uniquePhone();
    await api.startOfNextMinute();
    const answers = [];
    for (let request = 1; request <= 4; request++) {
      answers.push(
        await asClient('POST', '/otp/send', { phone_number: phone, purpose: 'generic' }, token),
      );
    }

    const fourth = answers[3]!;
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.code).toBe('rate_limited');
    expect(fourth.headers.get('x-ratelimit-limit')).toBe('3');
    expect(fourth.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses a number in a country off the SMS allow-list', async () => {
    const answer = await api.post(
      '/otp/send',
      { phone_number: '+33612345678', purpose: 'generic' },
      await signedIn(),
    );

    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([
      { field: 'phone_number', message: 'phone_number must be a phone number in one of: US, GB' },
    ]);
    expect(await api.outbox('+33612345678')).toEqual([]);
  });
});

describe('email and phone verification codes', () => {
  it('answers resendEmailOtp alike for unknown, verified and pending emails', async () => {
    const pending = uniqueEmail();
    await api.post('/auth/signup', {
      name: 'P',
      email: pending,
      password: 'correct horse battery',
    });
    const { email: verified } = await api.accountWithPendingPhone();
    await api.advanceClock(61);

    const answers = await Promise.all(
      [uniqueEmail(), verified, pending].map((email) => api.post('/otp/resend/email', { email })),
    );

    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(answers[0]!.body);
    }
    expect(await api.outbox(pending)).toHaveLength(2);
    expect((await api.outbox(verified)).length).toBe(1);
  });

  it('resends the sign-up code, which verifies the email without signing in', async () => {
    const email = uniqueEmail();
    await api.post('/auth/signup', { name: 'P', email, password: 'correct horse battery' });
    await api.advanceClock(61);
    await api.post('/otp/resend/email', { email });

    const verified = await api.post('/otp/verify/email', { email, otp: await api.codeFor(email) });
    const login = await api.post('/auth/login', { email, password: 'correct horse battery' });

    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ verified: true, email });
    expect(login.status).toBe(200);
  });

  it('answers resend within the cooldown exactly as for an unknown email', async () => {
    const email = uniqueEmail();
    await api.post('/auth/signup', { name: 'P', email, password: 'correct horse battery' });

    const pending = await api.post('/otp/resend/email', { email });
    const unknown = await api.post('/otp/resend/email', { email: uniqueEmail() });

    expect(pending.status).toBe(200);
    expect(pending.body).toEqual(unknown.body);
  });

  it('verifies a phone added at sign-up with resendMobileOtp and verifyMobileOtp', async () => {
    const { phone, accessToken } = await api.accountWithPendingPhone();
    const pending = await api.call('GET', '/profile', { token: accessToken });
    expect(pending.body.data).toMatchObject({ phone: null, pending_phone: phone });
    // The activation texted the first code; a resend after its cooldown texts the next one.
    await api.advanceClock(61);
    const resent = await api.post('/otp/resend/mobile', { mobile_number: phone });
    expect(await api.outbox(phone)).toHaveLength(2);
    const otp = await api.codeFor(phone);

    const verified = await api.post('/otp/verify/mobile', { mobile_number: phone, otp });

    expect(resent.status).toBe(200);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ verified: true, mobile_number: phone });
    const profile = await api.call('GET', '/profile', { token: accessToken });
    expect(profile.body.data).toMatchObject({ phone, phone_verified: true, pending_phone: null });
  });

  it('answers resendMobileOtp alike for unknown numbers and sends them nothing', async () => {
    const unknown = uniquePhone();
    const { phone } = await api.accountWithPhone();

    const a = await api.post('/otp/resend/mobile', { mobile_number: unknown });
    const b = await api.post('/otp/resend/mobile', { mobile_number: phone });

    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(await api.outbox(unknown)).toEqual([]);
  });

  it('confirms an email changed in the profile with verifyEmailOtp, resend included', async () => {
    const { accessToken } = await api.accountWithPhone();
    const newEmail = uniqueEmail();
    const changed = await api.call('PUT', '/profile/update', {
      body: { email: newEmail, current_password: 'correct horse battery' },
      token: accessToken,
    });
    expect(changed.status).toBe(200);
    await api.advanceClock(61);

    const resent = await api.post('/otp/resend/email', { email: newEmail });
    const [latest] = await api.outbox(newEmail);
    const verified = await api.post('/otp/verify/email', {
      email: newEmail,
      otp: await api.codeFor(newEmail),
    });

    expect(resent.status).toBe(200);
    expect(latest?.subject).toBe('Confirm your email address');
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ verified: true, email: newEmail });
    const profile = await api.call('GET', '/profile', { token: accessToken });
    expect(profile.body.data).toMatchObject({
      email: newEmail,
      email_verified: true,
      pending_email: null,
    });
  });

  it('refuses a wrong email code with invalid_otp and an expired one with otp_expired', async () => {
    const email = uniqueEmail();
    await api.post('/auth/signup', { name: 'P', email, password: 'correct horse battery' });
    const otp = await api.codeFor(email);

    const wrong = await api.post('/otp/verify/email', { email, otp: wrongCode(otp) });
    await api.advanceClock(600);
    const expired = await api.post('/otp/verify/email', { email, otp });

    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('invalid_otp');
    expect(expired.status).toBe(400);
    expect(expired.body.error.code).toBe('otp_expired');
  });

  it('expires an SMS code after 5 minutes', async () => {
    const token = await signedIn();
    const phone = uniquePhone();
    await api.post('/otp/send', { phone_number: phone, purpose: 'generic' }, token);
    const code = await api.codeFor(phone);

    await api.advanceClock(300);
    const answer = await api.post(
      '/otp/verify',
      { phone_number: phone, code, purpose: 'generic' },
      token,
    );

    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('otp_expired');
  });
});

describe('phone lookup', () => {
  it('tells whether a number is registered', async () => {
    const { phone } = await api.accountWithPhone();
    const other = uniquePhone();

    const registered = await asClient('GET', `/verify/phone?phone=${encodeURIComponent(phone)}`);
    const free = await asClient('GET', `/verify/phone?phone=${encodeURIComponent(other)}`);

    expect(registered.body).toEqual({ success: true, data: { phone, registered: true } });
    expect(free.body).toEqual({ success: true, data: { phone: other, registered: false } });
  });

  it('allows one client 10 lookups a minute', async () => {
    const from = newClientAddress();
    await api.startOfNextMinute();
    const answers = [];
    for (let lookup = 1; lookup <= 11; lookup++) {
      answers.push(
        await api.call('GET', `/verify/phone?phone=${encodeURIComponent(uniquePhone())}`, {
          from,
        }),
      );
    }

    expect(answers.slice(0, 10).every((answer) => answer.status === 200)).toBe(true);
    expect(answers[10]!.status).toBe(429);
    expect(answers[10]!.headers.get('x-ratelimit-limit')).toBe('10');
    expect(Number(answers[10]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('bad input', () => {
  it('refuses an unknown purpose, a malformed phone and a malformed code with field details', async () => {
    const purpose = await api.post('/otp/send', { phone_number: uniquePhone(), purpose: 'admin' });
    const phone = await api.post('/otp/send', { phone_number: '+1 555', purpose: 'login' });
    const code = await api.post('/otp/verify', {
      phone_number: uniquePhone(),
      code: '12ab5',
      purpose: 'login',
    });
    const lookup = await api.call('GET', '/verify/phone?phone=not-a-phone');

    expect(purpose.status).toBe(400);
    expect(purpose.body.error.details).toEqual([
      { field: 'purpose', message: 'purpose must be one of: login, generic' },
    ]);
    expect(phone.body.error.details).toEqual([
      { field: 'phone_number', message: expect.any(String) },
    ]);
    expect(code.body.error.details).toEqual([{ field: 'code', message: 'code must be 6 digits' }]);
    expect(lookup.status).toBe(400);
    expect(lookup.body.error.details).toEqual([{ field: 'phone', message: expect.any(String) }]);
  });

  it('answers every malformed request to the OTP routes with a 4xx, never a 5xx', async () => {
    const routes = [
      ['POST', '/otp/send'],
      ['POST', '/otp/verify'],
      ['POST', '/otp/resend/email'],
      ['POST', '/otp/resend/mobile'],
      ['POST', '/otp/verify/email'],
      ['POST', '/otp/verify/mobile'],
    ] as const;
    const bodies = [
      '',
      'null',
      '[]',
      '"text"',
      '{"phone_number":12345,"purpose":null}',
      '{"email":{"$ne":""},"otp":["1"]}',
      `{"mobile_number":"${'9'.repeat(40)}","otp":"1234567"}`,
      '{"phone_number":"+14155550123","code":"000000","purpose":"login","extra":1}',
      '{"email":"a@b.co","otp":"٠١٢٣٤٥"}',
      '{"phone_number":"+999999999999","purpose":"generic"}',
    ];
    const statuses: number[] = [];
    for (const [method, path] of routes) {
      for (const raw of bodies) {
        statuses.push((await api.call(method, path, { raw })).status);
      }
    }
    const lookups = ['', '?phone=', '?phone=%00', '?phone=+1&phone=+2', '?phone=1&x=1'];
    for (const query of lookups)
      statuses.push((await api.call('GET', `/verify/phone${query}`)).status);

    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(statuses.every((status) => status >= 400)).toBe(true);
  });
});
