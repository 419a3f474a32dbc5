import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountClient, uniqueEmail, uniquePhone } from '../e2e/accounts-support.js';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';

/**
 * Pre-account-hijacking and takeover attempts (docs/accounts.md, "Identity lifecycle"), each played
 * over HTTP against the service as `npm start` runs it. The stranger never reads the victim's
 * inbox or phone: every code below is read from the victim's own outbox.
 */

let service: LocalService;
let api: AccountClient;

beforeAll(async () => {
  service = await startLocalService();
  api = new AccountClient(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

const victimPassword = 'victim password 1';
const strangerPassword = 'stranger password 1';

/** Whether a password signs in to the email: what the stranger is after. */
const signsIn = async (email: string, password: string) =>
  (await api.post('/auth/login', { email, password })).status === 200;

/** Every message the outbox holds for a target, as subject + text. */
const messagesTo = async (target: string) =>
  (await api.outbox(target)).map((message) => `${message.subject ?? ''} ${message.text}`);

describe('two signups meeting on one pending email', { timeout: 60_000 }, () => {
  const interleavings = [
    { first: 'victim', newCode: false },
    { first: 'victim', newCode: true },
    { first: 'stranger', newCode: false },
    { first: 'stranger', newCode: true },
  ] as const;

  for (const { first, newCode } of interleavings) {
    it(`leaves the stranger nothing when the ${first} signs up first, ${newCode ? 'with' : 'without'} a new code`, async () => {
      const email = uniqueEmail();
      const strangerPhone = uniquePhone();
      const victim = { name: 'Ada Lovelace', email, password: victimPassword };
      const stranger = {
        name: 'Mallory',
        email,
        phone: strangerPhone,
        password: strangerPassword,
      };
      const [one, two] = first === 'victim' ? [victim, stranger] : [stranger, victim];

      expect((await api.post('/auth/signup', one)).status).toBe(201);
      await api.codeFor(email);
      if (newCode) await api.advanceClock(61);
      expect((await api.post('/auth/signup', two)).status).toBe(201);
      // The victim enters the newest code in their inbox: whichever signup it was sent for.
      const code = await api.codeFor(email);
      const activated = await api.post('/auth/verify-signup-otp', { email, otp: code });

      expect(activated.status).toBe(200);
      expect(activated.body.data.password_reset_required).toBe(true);
      expect(activated.body.data.user).toMatchObject({
        email,
        email_verified: true,
        phone: null,
        pending_phone: null,
      });
      expect(activated.body.data.user.name).not.toBe('Mallory');
      expect(await signsIn(email, strangerPassword)).toBe(false);
      expect(await signsIn(email, victimPassword)).toBe(false);

      // The inbox owner, signed in by the code, chooses the one password that now works.
      const set = await api.post(
        '/auth/change-password',
        { new_password: 'owner chosen password' },
        activated.body.data.access_token,
      );
      expect(set.status).toBe(200);
      expect(await signsIn(email, 'owner chosen password')).toBe(true);
      expect(await signsIn(email, strangerPassword)).toBe(false);
    });
  }

  it('keeps the password of a single signup, which its inbox owner activates', async () => {
    const email = uniqueEmail();
    await api.post('/auth/signup', { name: 'Ada', email, password: victimPassword });

    const activated = await api.post('/auth/verify-signup-otp', {
      email,
      otp: await api.codeFor(email),
    });

    expect(activated.status).toBe(200);
    expect(activated.body.data.password_reset_required).toBe(false);
    expect(await signsIn(email, victimPassword)).toBe(true);
  });

  it('refuses a password change without the current password once the account has one', async () => {
    const { tokens } = await api.verifiedAccount();

    const answer = await api.post(
      '/auth/change-password',
      { new_password: 'stolen token password' },
      tokens.access_token,
    );

    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([
      { field: 'current_password', message: expect.stringContaining('current_password') },
    ]);
  });
});

describe("a stranger's phone on the victim's signup", { timeout: 60_000 }, () => {
  it('never lets the stranger sign in by SMS to the account the victim activates', async () => {
    const email = uniqueEmail();
    const strangerPhone = uniquePhone();
    await api.post('/auth/signup', {
      name: 'Mallory',
      email,
      phone: strangerPhone,
      password: strangerPassword,
    });
    await api.advanceClock(61);
    await api.post('/auth/signup', { name: 'Ada', email, password: victimPassword });
    const activated = await api.post('/auth/verify-signup-otp', {
      email,
      otp: await api.codeFor(email),
    });
    expect(activated.status).toBe(200);

    const sent = await api.post('/otp/send', { phone_number: strangerPhone, purpose: 'login' });

    expect(sent.status).toBeLessThan(500);
    expect(await api.outbox(strangerPhone)).toEqual([]);
    const profile = await api.call('GET', '/profile', { token: activated.body.data.access_token });
    expect(profile.body.data).toMatchObject({ phone: null, pending_phone: null });
  });

  it('holds a phone given at signup as pending, reserving nothing, until its SMS code', async () => {
    const phone = uniquePhone();
    const squatter = uniqueEmail();
    await api.post('/auth/signup', { name: 'M', email: squatter, phone, password: 'squat pass 1' });

    // The number is not registered to the squatter, so its owner can sign up with it.
    const lookup = await api.call('GET', `/verify/phone?phone=${encodeURIComponent(phone)}`);
    expect(lookup.body.data.registered).toBe(false);
    const owner = uniqueEmail();
    expect(
      (
        await api.post('/auth/signup', {
          name: 'Ada',
          email: owner,
          phone,
          password: victimPassword,
        })
      ).status,
    ).toBe(201);
    // Activation texts the owner's pending number its code; verifying it registers the number.
    const activated = await api.post('/auth/verify-signup-otp', {
      email: owner,
      otp: await api.codeFor(owner),
    });
    expect(activated.body.data.user).toMatchObject({ phone: null, pending_phone: phone });
    const otp = await eventually(async () =>
      (await api.outbox(phone)).length > 0 ? api.codeFor(phone) : undefined,
    );
    const verified = await api.post('/otp/verify/mobile', { mobile_number: phone, otp });

    expect(verified.status).toBe(200);
    const profile = await api.call('GET', '/profile', { token: activated.body.data.access_token });
    expect(profile.body.data).toMatchObject({ phone, phone_verified: true, pending_phone: null });
    expect(
      (await api.call('GET', `/verify/phone?phone=${encodeURIComponent(phone)}`)).body.data
        .registered,
    ).toBe(true);
  });
});

describe('a pending email change', { timeout: 60_000 }, () => {
  it("never hands the account to the new address's owner who signs up", async () => {
    const account = await api.verifiedAccount();
    const target = uniqueEmail();
    const changed = await api.call('PUT', '/profile/update', {
      token: account.tokens.access_token,
      body: { email: target, current_password: account.password },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data.user).toMatchObject({
      email: account.email,
      pending_email: target,
    });
    await api.advanceClock(61);

    // The owner of the target inbox signs up with it and activates their own, new account.
    await api.post('/auth/signup', { name: 'Owner', email: target, password: victimPassword });
    const activated = await api.post('/auth/verify-signup-otp', {
      email: target,
      otp: await api.codeFor(target),
    });

    expect(activated.status).toBe(200);
    expect(activated.body.data.user.id).not.toBe(account.tokens.user.id);
    expect(activated.body.data.user.email).toBe(target);
    expect(await signsIn(account.email, account.password)).toBe(true);
    expect(await signsIn(target, victimPassword)).toBe(true);
  });

  it('keeps the old email as the sign-in identity until the new one is confirmed', async () => {
    const account = await api.verifiedAccount();
    const typo = `${account.email}x`;

    await api.call('PUT', '/profile/update', {
      token: account.tokens.access_token,
      body: { email: typo, current_password: account.password },
    });

    expect(await signsIn(account.email, account.password)).toBe(true);
    expect(await signsIn(typo, account.password)).toBe(false);
  });

  it('moves the email once its code is verified, and tells the old address at the request', async () => {
    const account = await api.verifiedAccount();
    const next = uniqueEmail();
    await api.call('PUT', '/profile/update', {
      token: account.tokens.access_token,
      body: { email: next, current_password: account.password },
    });
    const notice = await eventually(async () =>
      (await messagesTo(account.email)).find((text) => /email change/i.test(text)),
    );
    expect(notice).toContain(next);

    const verified = await api.post('/otp/verify/email', {
      email: next,
      otp: await api.codeFor(next),
    });

    expect(verified.status).toBe(200);
    expect(await signsIn(next, account.password)).toBe(true);
    expect(await signsIn(account.email, account.password)).toBe(false);
    const profile = await api.call('GET', '/profile', { token: account.tokens.access_token });
    expect(profile.body.data).toMatchObject({
      email: next,
      email_verified: true,
      pending_email: null,
    });
  });

  it('fails with 409 when the new email was taken before its code was verified', async () => {
    const account = await api.verifiedAccount();
    const contested = uniqueEmail();
    await api.call('PUT', '/profile/update', {
      token: account.tokens.access_token,
      body: { email: contested, current_password: account.password },
    });
    const changeCode = await api.codeFor(contested);
    await api.advanceClock(61);
    // Its owner signs up with it meanwhile (the pending change reserved nothing).
    const other = { name: 'Other', email: contested, password: victimPassword };
    await api.post('/auth/signup', other);
    await api.post('/auth/verify-signup-otp', {
      email: contested,
      otp: await api.codeFor(contested),
    });

    const verified = await api.post('/otp/verify/email', { email: contested, otp: changeCode });

    expect(verified.status).toBe(409);
    expect(verified.body.error.code).toBe('conflict');
    expect(await signsIn(account.email, account.password)).toBe(true);
    expect(await signsIn(contested, victimPassword)).toBe(true);
  });
});

describe('a stolen access token', { timeout: 60_000 }, () => {
  for (const [field, value] of [
    ['email', () => uniqueEmail()],
    ['phone_number', () => uniquePhone()],
  ] as const) {
    it(`cannot change the ${field} without the current password`, async () => {
      const account = await api.verifiedAccount();
      const attackerValue = value();

      const missing = await api.call('PUT', '/profile/update', {
        token: account.tokens.access_token,
        body: { [field]: attackerValue },
      });
      const wrong = await api.call('PUT', '/profile/update', {
        token: account.tokens.access_token,
        body: { [field]: attackerValue, current_password: 'a guess at it' },
      });

      expect(missing.status).toBe(400);
      expect(missing.body.error.details).toEqual([
        { field: 'current_password', message: expect.stringContaining('current_password') },
      ]);
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('invalid_credentials');
      expect(await api.outbox(attackerValue)).toEqual([]);
      const profile = await api.call('GET', '/profile', { token: account.tokens.access_token });
      expect(profile.body.data).toMatchObject({
        email: account.email,
        pending_email: null,
        pending_phone: null,
      });
    });
  }
});

describe('security notices', { timeout: 60_000 }, () => {
  it('emails the owner when the password is changed or reset', async () => {
    const account = await api.verifiedAccount();
    await api.post(
      '/auth/change-password',
      { current_password: account.password, new_password: 'changed password 1' },
      account.tokens.access_token,
    );
    await eventually(async () =>
      (await messagesTo(account.email)).find((text) => /password was changed/i.test(text)),
    );

    await api.post('/auth/forgot-password', { email: account.email });
    await api.post('/auth/reset-password-otp', {
      email: account.email,
      otp: await api.codeFor(account.email),
      new_password: 'reset password 1',
    });

    await eventually(async () =>
      (await messagesTo(account.email)).find((text) => /password was reset/i.test(text)),
    );
  });

  it('emails the owner when a phone number is added', async () => {
    const account = await api.verifiedAccount();
    const phone = uniquePhone();
    await api.call('PUT', '/profile/update', {
      token: account.tokens.access_token,
      body: { phone_number: phone, current_password: account.password },
    });
    const otp = await eventually(async () =>
      (await api.outbox(phone)).length > 0 ? api.codeFor(phone) : undefined,
    );

    expect((await api.post('/otp/verify/mobile', { mobile_number: phone, otp })).status).toBe(200);
    await eventually(async () =>
      (await messagesTo(account.email)).find((text) => /phone number/i.test(text)),
    );
  });
});

describe('password changes and sessions', { timeout: 60_000 }, () => {
  it('refuses the current password as the new one', async () => {
    const account = await api.verifiedAccount();

    const answer = await api.post(
      '/auth/change-password',
      { current_password: account.password, new_password: account.password },
      account.tokens.access_token,
    );

    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([
      { field: 'new_password', message: expect.stringContaining('new_password') },
    ]);
  });

  it('keeps the user online while another session lives', async () => {
    const account = await api.verifiedAccount();
    const second = await api.login(account.email, account.password);

    await api.post('/auth/logout', undefined, account.tokens.access_token);
    const stillOnline = await api.call('GET', '/profile', { token: second.access_token });

    expect(stillOnline.body.data.online_status).toBe(true);
  });

  it('lists the live sessions and ends one, or all, of them', async () => {
    const account = await api.verifiedAccount();
    const other = await api.login(account.email, account.password);

    const listed = await api.call('GET', '/auth/sessions', {
      token: account.tokens.access_token,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    const current = listed.body.data.find((session: { current: boolean }) => session.current);
    const elsewhere = listed.body.data.find((session: { current: boolean }) => !session.current);
    expect(current).toMatchObject({
      id: expect.stringMatching(/^ses_/),
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      ip_address: expect.any(String),
    });

    const ended = await api.call('DELETE', `/auth/sessions/${elsewhere.id}`, {
      token: account.tokens.access_token,
    });
    expect(ended.status).toBe(200);
    expect((await api.call('GET', '/profile', { token: other.access_token })).status).toBe(401);
    expect(
      (await api.post('/auth/refresh-token', { refresh_token: other.refresh_token })).status,
    ).toBe(401);
    expect((await api.call('GET', '/profile', { token: account.tokens.access_token })).status).toBe(
      200,
    );

    const everywhere = await api.post('/auth/logout-all', undefined, account.tokens.access_token);
    expect(everywhere.status).toBe(200);
    expect((await api.call('GET', '/profile', { token: account.tokens.access_token })).status).toBe(
      401,
    );
  });

  it('pages the sessions by cursor, and a cursor replayed by another user lists only their own', async () => {
    const victim = await api.verifiedAccount();
    await api.login(victim.email, victim.password);
    await api.login(victim.email, victim.password);
    const attacker = await api.verifiedAccount();
    const list = (token: string, query: string) =>
      api.call('GET', `/auth/sessions?${query}`, { token });

    const first = await list(victim.tokens.access_token, 'per_page=2');
    const second = await list(
      victim.tokens.access_token,
      `per_page=2&cursor=${first.body.meta.next_cursor}`,
    );
    const replayed = await list(
      attacker.tokens.access_token,
      `per_page=2&cursor=${first.body.meta.next_cursor}`,
    );
    const attackerOwn = await list(attacker.tokens.access_token, 'per_page=2');
    const forged = await list(attacker.tokens.access_token, 'cursor=eyJrIjp7fX0');

    expect(first.body.data).toHaveLength(2);
    expect(first.body.meta).toMatchObject({
      page: 1,
      per_page: 2,
      next_cursor: expect.any(String),
    });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.meta).toMatchObject({ page: 2, total: 3, next_cursor: null });
    const victimIds = [...first.body.data, ...second.body.data].map(
      (session: { id: string }) => session.id,
    );
    expect(new Set(victimIds).size).toBe(3);
    expect(replayed.status).toBe(200);
    for (const session of replayed.body.data) {
      expect(victimIds).not.toContain(session.id);
    }
    expect(attackerOwn.body.data).toHaveLength(1);
    expect(forged.status).toBe(400);
    expect(forged.body.error.details).toEqual([
      { field: 'cursor', message: 'cursor is not a cursor this service issued' },
    ]);
  });

  it("answers 404 for another user's session, and leaves it alive", async () => {
    const victim = await api.verifiedAccount();
    const attacker = await api.verifiedAccount();
    const [victimSession] = (
      await api.call('GET', '/auth/sessions', { token: victim.tokens.access_token })
    ).body.data;

    const answer = await api.call('DELETE', `/auth/sessions/${victimSession.id}`, {
      token: attacker.tokens.access_token,
    });

    expect(answer.status).toBe(404);
    expect((await api.call('GET', '/profile', { token: victim.tokens.access_token })).status).toBe(
      200,
    );
  });
});
