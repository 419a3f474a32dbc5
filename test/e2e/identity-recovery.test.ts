import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient, uniqueEmail, uniquePhone } from './accounts-support.js';

/**
 * Pre-account-hijacking through recovery (docs/accounts.md, "Password reset"), played
 * over HTTP against the service as `npm start` runs it. The stranger never reads the victim's
 * inbox: every code the victim enters is read from the victim's own outbox, and every code the
 * stranger enters from the stranger's own phone.
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

const strangerPassword = 'stranger password 1';

const signsIn = (email: string, password: string) => api.signsIn(email, password);

/** The code the phone's newest text carries, once one has arrived. */
const textedCode = (phone: string) =>
  eventually(async () => ((await api.outbox(phone)).length > 0 ? api.codeFor(phone) : undefined));

/** A stranger's signup with the victim's email, the stranger's password, name and phone. */
async function strangerSignsUpAs(email: string): Promise<string> {
  const phone = uniquePhone();
  const signup = { name: 'Mallory', email, phone, password: strangerPassword };
  expect((await api.post('/auth/signup', signup)).status).toBe(201);
  await api.codeFor(email);
  return phone;
}

/** The victim's reset with the code in their inbox; answers the victim's new session. */
async function victimResets(email: string) {
  await api.advanceClock(61);
  await api.post('/auth/forgot-password', { email });
  const reset = await api.post('/auth/reset-password-otp', {
    email,
    otp: await api.codeFor(email),
    new_password: 'victim reset password',
  });
  expect(reset.status).toBe(200);
  return api.login(email, 'victim reset password');
}

describe('forgot-password on a pending signup the victim never made', { timeout: 60_000 }, () => {
  it('activates through verify-signup-otp with none of the signup: a new password is required', async () => {
    const email = uniqueEmail();
    const strangerPhone = await strangerSignsUpAs(email);
    await api.advanceClock(61);

    // The victim, who never signed up, asks to reset the password and enters the code they got.
    const forgot = await api.post('/auth/forgot-password', { email });
    expect(forgot.body.data.verification_required).toBe(true);
    const activated = await api.post('/auth/verify-signup-otp', {
      email,
      otp: await api.codeFor(email),
    });

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
    // The signup's phone was dropped: it is never texted a code for this account.
    expect(await api.outbox(strangerPhone)).toEqual([]);

    const set = await api.post(
      '/auth/change-password',
      { new_password: 'victim chosen password' },
      activated.body.data.access_token,
    );
    expect(set.status).toBe(200);
    expect(await signsIn(email, 'victim chosen password')).toBe(true);
    expect(await signsIn(email, strangerPassword)).toBe(false);
  });

  it('activates through /otp/verify/email with no password anyone knows', async () => {
    const email = uniqueEmail();
    await strangerSignsUpAs(email);

    // Within the cooldown the forgot-password sends nothing new: the victim enters the code the
    // stranger's signup sent, after asking for the reset.
    await api.post('/auth/forgot-password', { email });
    const verified = await api.post('/otp/verify/email', { email, otp: await api.codeFor(email) });

    expect(verified.status).toBe(200);
    expect(await signsIn(email, strangerPassword)).toBe(false);
    const tokens = await victimResets(email);
    expect(tokens.user).toMatchObject({ phone: null, pending_phone: null });
    expect(tokens.user.name).not.toBe('Mallory');
  });
});

describe('a password reset is a recovery', { timeout: 60_000 }, () => {
  /**
   * An account whose password the stranger knew (phished, reused): the stranger signed in,
   * added the stranger's own phone and verified it by SMS.
   */
  async function accountWithStrangersPhone() {
    const account = await api.verifiedAccount();
    const phone = uniquePhone();
    const stranger = await api.login(account.email, account.password);
    const added = await api.call('PUT', '/profile/update', {
      token: stranger.access_token,
      body: { phone_number: phone, current_password: account.password },
    });
    expect(added.status).toBe(200);
    const confirmed = await api.post('/otp/verify/mobile', {
      mobile_number: phone,
      otp: await textedCode(phone),
    });
    expect(confirmed.status).toBe(200);
    return { ...account, phone, stranger };
  }

  /** Whether the phone signs in by SMS: a login code is sent, and it signs in. */
  async function signsInBySms(phone: string): Promise<boolean> {
    const before = (await api.outbox(phone)).length;
    await api.advanceClock(61);
    const sent = await api.post('/otp/send', { phone_number: phone, purpose: 'login' });
    expect(sent.status).toBe(200);
    const messages = await api.outbox(phone);
    if (messages.length === before) return false;
    const code = /\b(\d{6})\b/.exec(messages[0]?.text ?? '')?.[1];
    const verified = await api.post('/otp/verify', { phone_number: phone, code, purpose: 'login' });
    return verified.status === 200;
  }

  it('turns SMS sign-in off for the phone set before the reset, and says so', async () => {
    const account = await accountWithStrangersPhone();
    expect(await signsInBySms(account.phone)).toBe(true);

    const victim = await victimResets(account.email);

    expect(await signsInBySms(account.phone)).toBe(false);
    expect(victim.user).toMatchObject({ phone: account.phone, phone_verified: false });
    const notice = await eventually(async () =>
      (await api.messagesTo(account.email)).find((text) => /password was reset/i.test(text)),
    );
    expect(notice).toMatch(/sign(ing)? in by SMS/i);
    // The stranger cannot confirm the phone again: it takes a signed-in session.
    const anonymous = await api.post('/otp/send', {
      phone_number: account.phone,
      purpose: 'generic',
    });
    expect(anonymous.status).toBe(401);
    const strangersOldToken = await api.post(
      '/otp/send',
      { phone_number: account.phone, purpose: 'generic' },
      account.stranger.access_token,
    );
    expect(strangersOldToken.status).toBe(401);
  });

  it('signs in by SMS again once a signed-in session confirms the phone with a new code', async () => {
    const account = await accountWithStrangersPhone();
    const owner = await victimResets(account.email);

    // Here the phone is the owner's own: the owner, signed in, asks for a code and enters it.
    await api.advanceClock(61);
    const sent = await api.post(
      '/otp/send',
      { phone_number: account.phone, purpose: 'generic' },
      owner.access_token,
    );
    expect(sent.status).toBe(200);
    const confirmed = await api.post(
      '/otp/verify',
      { phone_number: account.phone, code: await api.codeFor(account.phone), purpose: 'generic' },
      owner.access_token,
    );
    expect(confirmed.status).toBe(200);

    const profile = await api.call('GET', '/profile', { token: owner.access_token });
    expect(profile.body.data).toMatchObject({ phone: account.phone, phone_verified: true });
    expect(await signsInBySms(account.phone)).toBe(true);
  });

  it('drops the email and phone changes asked before the reset', async () => {
    const account = await api.verifiedAccount();
    const strangerEmail = uniqueEmail();
    const strangerPhone = uniquePhone();
    const stranger = await api.login(account.email, account.password);
    for (const body of [{ email: strangerEmail }, { phone_number: strangerPhone }]) {
      const asked = await api.call('PUT', '/profile/update', {
        token: stranger.access_token,
        body: { ...body, current_password: account.password },
      });
      expect(asked.status).toBe(200);
    }
    const emailCode = await api.codeFor(strangerEmail);
    const phoneCode = await textedCode(strangerPhone);

    const owner = await victimResets(account.email);

    expect(owner.user).toMatchObject({ pending_email: null, pending_phone: null });
    const email = await api.post('/otp/verify/email', { email: strangerEmail, otp: emailCode });
    const phone = await api.post('/otp/verify/mobile', {
      mobile_number: strangerPhone,
      otp: phoneCode,
    });
    expect([email.status, phone.status]).toEqual([400, 400]);
    const profile = await api.call('GET', '/profile', { token: owner.access_token });
    expect(profile.body.data).toMatchObject({ email: account.email, phone: null });
  });
});

describe('a signup submitted twice', { timeout: 60_000 }, () => {
  it('is one signer when the password is the same: the password still signs in', async () => {
    const email = uniqueEmail();
    const signup = { name: 'Ada Lovelace', email, password: 'double click password' };
    expect((await api.post('/auth/signup', signup)).status).toBe(201);
    expect((await api.post('/auth/signup', signup)).status).toBe(201);

    const activated = await api.post('/auth/verify-signup-otp', {
      email,
      otp: await api.codeFor(email),
    });

    expect(activated.status).toBe(200);
    expect(activated.body.data.password_reset_required).toBe(false);
    expect(activated.body.data.user.name).toBe('Ada Lovelace');
    expect(await signsIn(email, signup.password)).toBe(true);
  });

  it('is still a contest when the second password differs', async () => {
    const email = uniqueEmail();
    await api.post('/auth/signup', { name: 'Ada', email, password: 'first password 1' });
    await api.post('/auth/signup', { name: 'Ada', email, password: 'second password 2' });

    const activated = await api.post('/auth/verify-signup-otp', {
      email,
      otp: await api.codeFor(email),
    });

    expect(activated.body.data.password_reset_required).toBe(true);
    expect(await signsIn(email, 'first password 1')).toBe(false);
    expect(await signsIn(email, 'second password 2')).toBe(false);
  });
});
