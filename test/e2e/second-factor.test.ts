import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successOf } from '../../shared/http/client/api-client.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient, type Answer } from './accounts-support.js';

/**
 * The authenticator-app second factor through `npm start`'s runtime, as a client app and an
 * attacker who knows the password (or holds the phone) would use it: set up with the password,
 * every sign-in then stops at an MFA ticket until a code of the app, or a recovery code, is shown.
 */

let service: LocalService;
let client: AccountClient;

beforeAll(async () => {
  service = await startLocalService();
  client = new AccountClient(service);
});

afterAll(async () => {
  await service?.stop();
});

/** The code the app shows at the service's time, `stepsLater` steps on. */
async function appCode(secret: string, stepsLater = 0): Promise<string> {
  const now = await client.advanceClock(0);
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({
    timestamp: now + stepsLater * 30_000,
  });
}

/** A verified account with an authenticator app set up: its secret and recovery codes. */
async function accountWithApp() {
  const account = await client.verifiedAccount();
  const token = account.tokens.access_token;
  const enrolment = await successOf(
    client.api.POST('/auth/mfa/totp/enrolment', {
      body: { current_password: account.password },
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  const { secret } = enrolment.data;
  const enabled = await successOf(
    client.api.POST('/auth/mfa/totp', {
      body: { code: await appCode(secret) },
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  // The code that turned it on is used: the next sign-in needs a later one.
  await client.advanceClock(30);
  return { ...account, token, secret, recoveryCodes: enabled.data.recovery_codes };
}

/** A password login that must answer an MFA ticket; answers the ticket. */
async function ticketOf(email: string, password: string, from?: string): Promise<string> {
  const answer = await client.call('POST', '/auth/login', { body: { email, password }, from });
  expect(answer.status).toBe(200);
  expect(answer.body.data).toEqual({
    mfa_required: true,
    mfa_ticket: expect.stringMatching(/^mfa_/),
    expires_in: 300,
  });
  expect(answer.body.data.access_token).toBeUndefined();
  return answer.body.data.mfa_ticket;
}

const verify = (body: Record<string, string>, from?: string): Promise<Answer> =>
  client.call('POST', '/auth/mfa/verify', { body, from });

describe('an authenticator app as second factor', () => {
  it('is set up with the password and a first code; a login then answers a ticket, and the ticket with a code of the app the tokens', async () => {
    const account = await accountWithApp();
    expect(account.recoveryCodes).toHaveLength(10);
    expect(new Set(account.recoveryCodes).size).toBe(10);
    expect(await client.messagesTo(account.email)).toContainEqual(
      expect.stringContaining('An authenticator app was set up'),
    );

    const ticket = await ticketOf(account.email, account.password);
    const signedIn = await verify({ mfa_ticket: ticket, code: await appCode(account.secret) });

    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data).toMatchObject({
      token_type: 'Bearer',
      user: { email: account.email },
    });
    const profile = await client.call('GET', '/profile', {
      token: signedIn.body.data.access_token,
    });
    expect(profile.status).toBe(200);
    expect(profile.body.data.mfa_enabled).toBe(true);
  });

  it('shows the enrolment an SVG QR code of the otpauth URI, and refuses a setup without the right password', async () => {
    const account = await client.verifiedAccount();
    const token = account.tokens.access_token;

    const refused = await client.call('POST', '/auth/mfa/totp/enrolment', {
      body: { current_password: 'not the password' },
      token,
    });
    const started = await client.call('POST', '/auth/mfa/totp/enrolment', {
      body: { current_password: account.password },
      token,
    });

    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_credentials');
    expect(started.status).toBe(200);
    expect(started.body.data.otpauth_uri).toMatch(
      new RegExp(
        `^otpauth://totp/[^?]*${encodeURIComponent(account.email)}\\?.*secret=${started.body.data.secret}`,
      ),
    );
    expect(started.body.data.qr_svg).toMatch(/^<svg[\s\S]*<\/svg>$/);
    // Not on until its first code: the login still answers tokens.
    expect((await client.login(account.email, account.password)).access_token).toBeTruthy();
  });

  it('refuses a code used once already, even within its 30 seconds', async () => {
    const account = await accountWithApp();
    const code = await appCode(account.secret);
    const first = await verify({
      mfa_ticket: await ticketOf(account.email, account.password),
      code,
    });

    const again = await verify({
      mfa_ticket: await ticketOf(account.email, account.password),
      code,
    });

    expect(first.status).toBe(200);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_otp');
  });

  it('counts wrong codes against the source: the fifth locks that source out, not the owner elsewhere', async () => {
    const account = await accountWithApp();
    const ticket = await ticketOf(account.email, account.password, '127.0.0.31');
    const right = await appCode(account.secret);
    const wrong = right === '000000' ? '000001' : '000000';

    const answers: number[] = [];
    for (let guess = 0; guess < 5; guess++) {
      answers.push((await verify({ mfa_ticket: ticket, code: wrong }, '127.0.0.31')).status);
    }
    const rightFromThere = await verify({ mfa_ticket: ticket, code: right }, '127.0.0.31');
    const owner = await verify(
      { mfa_ticket: await ticketOf(account.email, account.password, '127.0.0.32'), code: right },
      '127.0.0.32',
    );

    expect(answers).toEqual([400, 400, 400, 400, 429]);
    expect(rightFromThere.status).toBe(429);
    expect(rightFromThere.body.error.code).toBe('too_many_attempts');
    expect(owner.status).toBe(200);
  });

  it('takes each recovery code once, whatever its case and dashes', async () => {
    const account = await accountWithApp();
    const recovery = account.recoveryCodes[0]!;

    const first = await verify({
      mfa_ticket: await ticketOf(account.email, account.password),
      recovery_code: recovery.toUpperCase().replace('-', ''),
    });
    const again = await verify({
      mfa_ticket: await ticketOf(account.email, account.password),
      recovery_code: recovery,
    });

    expect(first.status).toBe(200);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_otp');
  });

  it('refuses a ticket past its five minutes, and a ticket used once', async () => {
    const account = await accountWithApp();
    const stale = await ticketOf(account.email, account.password);
    const used = await ticketOf(account.email, account.password);
    expect((await verify({ mfa_ticket: used, code: await appCode(account.secret) })).status).toBe(
      200,
    );
    await client.advanceClock(301);

    const late = await verify({ mfa_ticket: stale, code: await appCode(account.secret) });
    const reused = await verify({ mfa_ticket: used, code: await appCode(account.secret, 1) });

    for (const answer of [late, reused]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('invalid_token');
    }
  });

  it('does not let a code of one account finish the sign-in of another', async () => {
    const victim = await accountWithApp();
    const attacker = await accountWithApp();

    const answer = await verify({
      mfa_ticket: await ticketOf(victim.email, victim.password),
      code: await appCode(attacker.secret),
    });

    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_otp');
  });

  it('stops an SMS sign-in at the ticket too: a SIM swap does not skip the app', async () => {
    const account = await client.accountWithPhone();
    const token = account.accessToken;
    const password = 'correct horse battery';
    const { secret } = (
      await successOf(
        client.api.POST('/auth/mfa/totp/enrolment', {
          body: { current_password: password },
          headers: { authorization: `Bearer ${token}` },
        }),
      )
    ).data;
    await successOf(
      client.api.POST('/auth/mfa/totp', {
        body: { code: await appCode(secret) },
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    await client.advanceClock(60);

    await successOf(
      client.api.POST('/otp/send', { body: { phone_number: account.phone, purpose: 'login' } }),
    );
    const bySms = await client.call('POST', '/otp/verify', {
      body: {
        phone_number: account.phone,
        code: await client.codeFor(account.phone),
        purpose: 'login',
      },
    });

    expect(bySms.status).toBe(200);
    expect(bySms.body.data.mfa_required).toBe(true);
    expect(bySms.body.data.access_token).toBeUndefined();
    const finished = await verify({
      mfa_ticket: bySms.body.data.mfa_ticket,
      code: await appCode(secret),
    });
    expect(finished.status).toBe(200);
  });

  it('survives a password reset: whoever resets the password from the inbox still needs the app', async () => {
    const account = await accountWithApp();
    await successOf(client.api.POST('/auth/forgot-password', { body: { email: account.email } }));
    await successOf(
      client.api.POST('/auth/reset-password-otp', {
        body: {
          email: account.email,
          otp: await client.codeFor(account.email),
          new_password: 'a brand new password',
        },
      }),
    );

    await ticketOf(account.email, 'a brand new password');
  });

  it('is removed only with the password; sign-ins then answer tokens again, and the owner is told', async () => {
    const account = await accountWithApp();
    const signedIn = await verify({
      mfa_ticket: await ticketOf(account.email, account.password),
      code: await appCode(account.secret),
    });
    const token = signedIn.body.data.access_token;

    const refused = await client.call('DELETE', '/auth/mfa/totp', {
      body: { current_password: 'a guess' },
      token,
    });
    await ticketOf(account.email, account.password);
    const removed = await client.call('DELETE', '/auth/mfa/totp', {
      body: { current_password: account.password },
      token,
    });

    expect(refused.status).toBe(401);
    expect(removed.status).toBe(200);
    expect((await client.login(account.email, account.password)).user.mfa_enabled).toBe(false);
    expect(await client.messagesTo(account.email)).toContainEqual(
      expect.stringContaining('The authenticator app was removed'),
    );
  });

  it('gives ten new recovery codes only for the password: the earlier ones stop working, and the owner is told', async () => {
    const account = await accountWithApp();
    const withoutApp = await client.verifiedAccount();

    const refused = await client.call('POST', '/auth/mfa/recovery-codes', {
      body: { current_password: 'a guess' },
      token: account.token,
    });
    const replaced = await client.call('POST', '/auth/mfa/recovery-codes', {
      body: { current_password: account.password },
      token: account.token,
    });
    const noApp = await client.call('POST', '/auth/mfa/recovery-codes', {
      body: { current_password: withoutApp.password },
      token: withoutApp.tokens.access_token,
    });

    expect(refused.status).toBe(401);
    expect(noApp.status).toBe(404);
    expect(replaced.status).toBe(200);
    const fresh: string[] = replaced.body.data.recovery_codes;
    expect(new Set(fresh).size).toBe(10);
    expect(fresh.filter((code) => account.recoveryCodes.includes(code))).toEqual([]);
    const [oldCode] = account.recoveryCodes as [string];
    const [newCode] = fresh as [string];
    const withOld = await verify({
      mfa_ticket: await ticketOf(account.email, account.password),
      recovery_code: oldCode,
    });
    expect(withOld.status).toBe(400);
    expect(withOld.body.error.code).toBe('invalid_otp');
    const withNew = await verify({
      mfa_ticket: await ticketOf(account.email, account.password),
      recovery_code: newCode,
    });
    expect(withNew.status).toBe(200);
    expect(await client.messagesTo(account.email)).toContainEqual(
      expect.stringContaining('New recovery codes were made'),
    );
  });
});
