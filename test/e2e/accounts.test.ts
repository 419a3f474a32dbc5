import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putIfAbsent } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import { ttlAttribute } from '../../shared/adapters/table-definition.js';
import { epochSeconds } from '../../shared/domain/clock.js';
import { scanTable } from '../reliability/consistency.js';
import {
  type LocalService,
  serviceTableEndpoint,
  startLocalService,
  useServiceTable,
} from '../support/local-service.js';
import { AccountClient, uniqueEmail, uniquePhone } from './accounts-support.js';

let service: LocalService;
let api: AccountClient;

beforeAll(async () => {
  service = await startLocalService();
  api = new AccountClient(service);
  // The tests that look at what is stored read the service's own DynamoDB Local.
  useServiceTable(service);
});

afterAll(async () => {
  await service?.stop();
});

describe('signup and email verification', () => {
  it('stores the account unverified and emails a 6-digit code', async () => {
    const email = uniqueEmail();

    const answer = await api.post('/auth/signup', {
      name: 'Ada',
      email: `  ${email.toUpperCase()} `,
      password: 'correct horse battery',
    });

    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      success: true,
      data: { email, verification_required: true, message: expect.any(String) },
    });
    expect(await api.codeFor(email)).toMatch(/^\d{6}$/);
  });

  it('refuses login before verification with 403 only when the password is right', async () => {
    const email = uniqueEmail();
    await api.post('/auth/signup', { name: 'Ada', email, password: 'correct horse battery' });

    const wrong = await api.post('/auth/login', { email, password: 'not the password' });
    const right = await api.post('/auth/login', { email, password: 'correct horse battery' });

    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_credentials');
    expect(right.status).toBe(403);
    expect(right.body.error.code).toBe('email_not_verified');
  });

  it('activates the account with the code and returns the token pair', async () => {
    const email = uniqueEmail();
    await api.post('/auth/signup', { name: 'Ada', email, password: 'correct horse battery' });

    const answer = await api.post('/auth/verify-signup-otp', {
      email,
      otp: await api.codeFor(email),
    });

    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
      refresh_token: expect.any(String),
      password_reset_required: false,
      user: {
        id: expect.stringMatching(/^usr_/),
        name: 'Ada',
        email,
        phone: null,
        pending_email: null,
        pending_phone: null,
        gender: null,
        online_status: true,
        email_verified: true,
        phone_verified: false,
        mfa_enabled: false,
        created_at: expect.any(String),
      },
    });
    const profile = await api.call('GET', '/profile', { token: answer.body.data.access_token });
    expect(profile.status).toBe(200);
    expect(profile.body.data.email_verified).toBe(true);
    expect((await api.login(email, 'correct horse battery')).token_type).toBe('Bearer');
  });

  it('answers a signup with a taken email exactly like a fresh one', async () => {
    const { email } = await api.verifiedAccount();
    const fresh = uniqueEmail();

    const taken = await api.post('/auth/signup', {
      name: 'Eve',
      email,
      password: 'another password',
    });
    const created = await api.post('/auth/signup', {
      name: 'Eve',
      email: fresh,
      password: 'another password',
    });

    expect(taken.status).toBe(created.status);
    expect(taken.body).toEqual({ ...created.body, data: { ...created.body.data, email } });
    // The real owner's password still works.
    expect((await api.login(email, 'correct horse battery')).user.email).toBe(email);
  });

  it('creates exactly one account when 20 signups race for one email', async () => {
    const email = uniqueEmail();

    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post('/auth/signup', { name: 'Racer', email, password: 'racing password' }),
      ),
    );

    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    // One account, one code: the 19 others found the email guard taken (resends are in cooldown).
    expect(await api.outbox(email)).toHaveLength(1);
    const verified = await api.post('/auth/verify-signup-otp', {
      email,
      otp: await api.codeFor(email),
    });
    expect(verified.status).toBe(200);
  }, 60_000);

  it('refuses a phone that another account verified', async () => {
    const phone = uniquePhone();
    const holder = uniqueEmail();
    await api.post('/auth/signup', { name: 'A', email: holder, phone, password: 'password one' });
    await api.post('/auth/verify-signup-otp', { email: holder, otp: await api.codeFor(holder) });
    await api.post('/otp/verify/mobile', { mobile_number: phone, otp: await api.codeFor(phone) });

    const answer = await api.post('/auth/signup', {
      name: 'B',
      email: uniqueEmail(),
      phone,
      password: 'password two',
    });

    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'conflict', details: [{ field: 'phone' }] });
  });
});

describe('login', () => {
  it('answers an unknown email and a wrong password alike', async () => {
    // Timing is a bench figure (both paths pay one Argon2id verification), never a test's.
    const { email } = await api.verifiedAccount();
    const unknown = await api.post('/auth/login', {
      email: uniqueEmail(),
      password: 'guess password',
    });
    const wrong = await api.post('/auth/login', { email, password: 'guess password' });
    expect([unknown.status, wrong.status]).toEqual([401, 401]);
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.body).toMatchObject({ error: { code: 'invalid_credentials' } });
  });

  it('locks an account for a while after repeated failures, never for good', async () => {
    const { email, password } = await api.verifiedAccount();
    for (let i = 0; i < 5; i++) {
      expect((await api.post('/auth/login', { email, password: 'wrong password' })).status).toBe(
        401,
      );
    }

    const locked = await api.post('/auth/login', { email, password });
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('too_many_attempts');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);

    await api.advanceClock(31);
    const after = await api.post('/auth/login', { email, password });
    expect(after.status).toBe(200);
  });
});

describe('access tokens', () => {
  it('signs access tokens with EdDSA and a kid published in the JWKS', async () => {
    const { tokens } = await api.verifiedAccount();

    const jwks = await api.call('GET', '/.well-known/jwks.json');
    const keySet = jwks.body as { keys: { kid: string; kty: string; crv: string }[] };
    const header = decodeProtectedHeader(tokens.access_token);
    const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(keySet), {
      issuer: 'http://localhost/v1',
      audience: 'account-service',
    });

    expect(jwks.status).toBe(200);
    expect(header).toMatchObject({ alg: 'EdDSA', kid: keySet.keys[0]?.kid });
    expect(keySet.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(payload).toMatchObject({ sub: tokens.user.id, sid: expect.stringMatching(/^ses_/) });
    expect(payload.jti).toEqual(expect.any(String));
    expect(payload.exp! - payload.iat!).toBe(900);
  });

  it('refuses a missing, malformed or tampered token', async () => {
    const { tokens } = await api.verifiedAccount();
    const tampered = `${tokens.access_token.slice(0, -4)}AAAA`;

    const missing = await api.call('GET', '/profile');
    const malformed = await api.call('GET', '/profile', { token: 'not-a-jwt' });
    const forged = await api.call('GET', '/profile', { token: tampered });

    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    expect([malformed.status, malformed.body.error.code]).toEqual([401, 'invalid_token']);
    expect([forged.status, forged.body.error.code]).toEqual([401, 'invalid_token']);
  });
});

describe('refresh tokens', () => {
  it('rotates a refresh token into a working pair', async () => {
    const { tokens } = await api.verifiedAccount();

    const answer = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });

    expect(answer.status).toBe(200);
    expect(answer.body.data.refresh_token).not.toBe(tokens.refresh_token);
    expect(answer.body.data.user.id).toBe(tokens.user.id);
    const profile = await api.call('GET', '/profile', { token: answer.body.data.access_token });
    expect(profile.status).toBe(200);
  });

  it('gives concurrent refreshes of one token the same successor pair, access token included', async () => {
    const { tokens } = await api.verifiedAccount();

    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token }),
      ),
    );

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.data.refresh_token)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.body.data.access_token)).size).toBe(1);
  });

  it('hands a refresh repeated within 10 seconds the identical pair, with its time left', async () => {
    const { tokens } = await api.verifiedAccount();
    const first = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });
    await api.advanceClock(6);

    const again = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });

    expect(again.status).toBe(200);
    expect(again.body.data.refresh_token).toBe(first.body.data.refresh_token);
    expect(again.body.data.access_token).toBe(first.body.data.access_token);
    expect(decodeJwt(again.body.data.access_token).jti).toBe(
      decodeJwt(first.body.data.access_token).jti,
    );
    // The time left of the one access token: 900 s from its issue, less what has passed (the
    // clock moved 6 s; a loaded machine may add a few real seconds between the calls).
    expect(first.body.data.expires_in).toBeGreaterThanOrEqual(897);
    expect(first.body.data.expires_in).toBeLessThanOrEqual(900);
    expect(again.body.data.expires_in).toBeGreaterThanOrEqual(890);
    expect(again.body.data.expires_in).toBeLessThanOrEqual(first.body.data.expires_in - 6);
    // The pair works, once: its refresh token rotates as any other.
    const next = await api.post('/auth/refresh-token', {
      refresh_token: again.body.data.refresh_token,
    });
    expect(next.status).toBe(200);
    expect(next.body.data.access_token).not.toBe(again.body.data.access_token);
  });

  it('answers a refresh with the account as it is now, not as it was at sign-in', async () => {
    const { tokens } = await api.verifiedAccount();
    await api.call('PUT', '/profile/update', {
      token: tokens.access_token,
      body: { name: 'Ada King', gender: 'female' },
    });

    const answer = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });

    expect(answer.body.data.user).toMatchObject({ name: 'Ada King', gender: 'female' });
    const next = await api.post('/auth/refresh-token', {
      refresh_token: answer.body.data.refresh_token,
    });
    expect(next.body.data.user).toMatchObject({ name: 'Ada King', gender: 'female' });
  });

  it('issues opaque refresh tokens: 256 random bits that name neither the user nor the session', async () => {
    const { tokens } = await api.verifiedAccount();
    const rotated = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });

    for (const pair of [tokens, rotated.body.data]) {
      const { sub, sid } = decodeJwt(pair.access_token);
      expect(pair.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(pair.refresh_token, 'base64url')).toHaveLength(32);
      expect(pair.refresh_token).not.toContain(String(sub).slice(4));
      expect(pair.refresh_token).not.toContain(String(sid).slice(4));
    }
  });

  it('stores no token of a pair, nor its text: someone who reads the table cannot take the grace pair', async () => {
    const { tokens } = await api.verifiedAccount();
    const first = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });
    const again = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });
    expect(again.body.data.access_token).toBe(first.body.data.access_token);

    const stored = JSON.stringify(await scanTable(serviceTableEndpoint(service), 'service-local'));

    const secrets = [tokens.refresh_token, first.body.data.refresh_token];
    const signatures = [tokens, first.body.data].map((pair) => pair.access_token.split('.')[2]);
    for (const secret of [...secrets, ...signatures]) expect(stored).not.toContain(secret);
    // What is stored of a refresh token is its hash.
    const hash = createHash('sha256').update(first.body.data.refresh_token).digest('base64url');
    expect(stored).toContain(`REFRESH#${hash}`);
  });

  it('keeps a token issued before tokens were opaque working until it rotates, into an opaque one', async () => {
    const { tokens } = await api.verifiedAccount();
    const { sub, sid } = decodeJwt(tokens.access_token);
    // The old shape: `<user id>.<session id>.<secret>`, stored as the hash of the whole text.
    const legacy = `${sub}.${sid}.${randomBytes(32).toString('base64url')}`;
    const now = await api.advanceClock(0);
    await putIfAbsent({
      ...keys.refreshToken(createHash('sha256').update(legacy).digest('base64url')),
      user_id: sub,
      session_id: sid,
      issued_at: now,
      [ttlAttribute]: epochSeconds(now) + 30 * 24 * 3600,
    });
    const forged = `${sub}.${sid}.${randomBytes(32).toString('base64url')}`;

    const rotated = await api.post('/auth/refresh-token', { refresh_token: legacy });
    const again = await api.post('/auth/refresh-token', { refresh_token: legacy });
    const guessed = await api.post('/auth/refresh-token', { refresh_token: forged });

    expect(rotated.status).toBe(200);
    expect(rotated.body.data.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.body.data.user.id).toBe(sub);
    expect(again.body.data.refresh_token).toBe(rotated.body.data.refresh_token);
    expect(again.body.data.access_token).toBe(rotated.body.data.access_token);
    // Knowing the ids (an access token shows them) is not knowing a token.
    expect([guessed.status, guessed.body.error.code]).toEqual([401, 'invalid_token']);
    const next = await api.post('/auth/refresh-token', {
      refresh_token: rotated.body.data.refresh_token,
    });
    expect(next.status).toBe(200);
    await api.advanceClock(11);
    const replay = await api.post('/auth/refresh-token', { refresh_token: legacy });
    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toMatch(/already used; the session has been revoked/);
  });

  it('revokes the session when a rotated token comes back after 10 seconds', async () => {
    const { tokens } = await api.verifiedAccount();
    const rotated = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });
    const successor = rotated.body.data;
    await api.advanceClock(11);

    const replay = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });

    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('invalid_token');
    const descendant = await api.post('/auth/refresh-token', {
      refresh_token: successor.refresh_token,
    });
    expect(descendant.status).toBe(401);
    const profile = await api.call('GET', '/profile', { token: successor.access_token });
    expect(profile.status).toBe(401);
  });

  it('refuses an unknown refresh token', async () => {
    const answer = await api.post('/auth/refresh-token', { refresh_token: 'made-up-token' });
    expect([answer.status, answer.body.error.code]).toEqual([401, 'invalid_token']);
  });
});

describe('logout', () => {
  it('ends the session at once; the user stays online while another session lives', async () => {
    const { email, password, tokens } = await api.verifiedAccount();
    const other = await api.login(email, password);

    const answer = await api.call('POST', '/auth/logout', { token: tokens.access_token });

    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    const after = await api.call('GET', '/profile', { token: tokens.access_token });
    expect([after.status, after.body.error.code]).toEqual([401, 'invalid_token']);
    const refresh = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(401);
    const seenByOther = await api.call('GET', '/profile', { token: other.access_token });
    expect(seenByOther.body.data.online_status).toBe(true);
  });

  it('succeeds with a missing, an invalid or an expired token', async () => {
    const { tokens } = await api.verifiedAccount();
    await api.advanceClock(16 * 60);

    const missing = await api.call('POST', '/auth/logout');
    const invalid = await api.call('POST', '/auth/logout', { token: 'garbage' });
    const expired = await api.call('POST', '/auth/logout', { token: tokens.access_token });

    expect([missing.status, invalid.status, expired.status]).toEqual([200, 200, 200]);
    // The expired token still named its session: it is gone, so its refresh token is dead too.
    const refresh = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(401);
  });
});

describe('password change and reset', () => {
  it('checks the current password and revokes every other session', async () => {
    const { email, password, tokens } = await api.verifiedAccount();
    const other = await api.login(email, password);

    const wrong = await api.post(
      '/auth/change-password',
      { current_password: 'not it at all', new_password: 'brand new password' },
      tokens.access_token,
    );
    const changed = await api.post(
      '/auth/change-password',
      { current_password: password, new_password: 'brand new password' },
      tokens.access_token,
    );

    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_credentials']);
    expect(changed.status).toBe(200);
    expect((await api.call('GET', '/profile', { token: tokens.access_token })).status).toBe(200);
    expect((await api.call('GET', '/profile', { token: other.access_token })).status).toBe(401);
    expect((await api.post('/auth/login', { email, password })).status).toBe(401);
    expect((await api.login(email, 'brand new password')).user.email).toBe(email);
  });

  it('resets the password with the emailed code and revokes all sessions', async () => {
    const { email, tokens } = await api.verifiedAccount();

    const forgot = await api.post('/auth/forgot-password', { email });
    const otp = await api.codeFor(email);
    const reset = await api.post('/auth/reset-password-otp', {
      email,
      otp,
      new_password: 'reset password 123',
    });

    expect(forgot.status).toBe(200);
    expect(forgot.body.data.verification_required).toBe(false);
    expect(reset.status).toBe(200);
    expect((await api.call('GET', '/profile', { token: tokens.access_token })).status).toBe(401);
    expect((await api.login(email, 'reset password 123')).user.email).toBe(email);
    const again = await api.post('/auth/reset-password-otp', {
      email,
      otp,
      new_password: 'another reset pass',
    });
    expect(again.status).toBe(400);
  });

  it('refuses a reset code after 10 minutes', async () => {
    const { email, password } = await api.verifiedAccount();
    await api.post('/auth/forgot-password', { email });
    const otp = await api.codeFor(email);
    await api.advanceClock(10 * 60 + 1);

    const reset = await api.post('/auth/reset-password-otp', {
      email,
      otp,
      new_password: 'too late password',
    });

    expect(reset.status).toBe(400);
    expect(['otp_expired', 'invalid_otp']).toContain(reset.body.error.code);
    expect((await api.login(email, password)).user.email).toBe(email);
  });

  it('sends an unverified email a verification code and says verification comes first', async () => {
    const email = uniqueEmail();
    await api.post('/auth/signup', { name: 'Ada', email, password: 'correct horse battery' });
    await api.advanceClock(61);

    const answer = await api.post('/auth/forgot-password', { email });

    expect(answer.status).toBe(200);
    expect(answer.body.data.verification_required).toBe(true);
    expect(await api.outbox(email)).toHaveLength(2);
    const verified = await api.post('/auth/verify-signup-otp', {
      email,
      otp: await api.codeFor(email),
    });
    expect(verified.status).toBe(200);
  });

  it('answers an unknown email exactly like a known one', async () => {
    const { email } = await api.verifiedAccount();

    const known = await api.post('/auth/forgot-password', { email });
    const unknown = await api.post('/auth/forgot-password', { email: uniqueEmail() });

    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
  });
});

describe('profile', () => {
  it('updates name, gender and online status', async () => {
    const { tokens } = await api.verifiedAccount();

    const answer = await api.call('PUT', '/profile/update', {
      token: tokens.access_token,
      body: { name: 'Ada King', gender: 'female', online_status: false },
    });

    expect(answer.status).toBe(200);
    expect(answer.body.data.user).toMatchObject({
      name: 'Ada King',
      gender: 'female',
      online_status: false,
    });
    const profile = await api.call('GET', '/profile', { token: tokens.access_token });
    expect(profile.body.data).toMatchObject({ name: 'Ada King', gender: 'female' });
  });

  it('validates every field and names each bad one', async () => {
    const { tokens } = await api.verifiedAccount();

    const answer = await api.call('PUT', '/profile/update', {
      token: tokens.access_token,
      body: { email: 'not-an-email', phone_number: '12', gender: 'robot', online_status: 'yes' },
    });

    expect(answer.status).toBe(400);
    expect(
      answer.body.error.details.map((detail: { field: string }) => detail.field).sort(),
    ).toEqual(['email', 'gender', 'online_status', 'phone_number']);
  });

  it('keeps a new email pending until its code is verified', async () => {
    const { email, password, tokens } = await api.verifiedAccount();
    const newEmail = uniqueEmail();

    const answer = await api.call('PUT', '/profile/update', {
      token: tokens.access_token,
      body: { email: newEmail, current_password: password },
    });

    expect(answer.status).toBe(200);
    expect(answer.body.data.user).toMatchObject({
      email,
      email_verified: true,
      pending_email: newEmail,
    });
    expect(answer.body.data.verification_required).toEqual(['email']);
    const verified = await api.post('/otp/verify/email', {
      email: newEmail,
      otp: await api.codeFor(newEmail),
    });
    expect(verified.status).toBe(200);
    const profile = await api.call('GET', '/profile', { token: tokens.access_token });
    expect(profile.body.data).toMatchObject({ email: newEmail, email_verified: true });
  });

  it('keeps a new phone pending until its SMS code is verified', async () => {
    const { password, tokens } = await api.verifiedAccount();
    const phone = uniquePhone();

    const answer = await api.call('PUT', '/profile/update', {
      token: tokens.access_token,
      body: { phone_number: phone, current_password: password },
    });

    expect(answer.status).toBe(200);
    expect(answer.body.data.user).toMatchObject({
      phone: null,
      phone_verified: false,
      pending_phone: phone,
    });
    expect(answer.body.data.verification_required).toEqual(['phone_number']);
    const verified = await api.post('/otp/verify/mobile', {
      mobile_number: phone,
      otp: await api.codeFor(phone),
    });
    expect(verified.status).toBe(200);
    const profile = await api.call('GET', '/profile', { token: tokens.access_token });
    expect(profile.body.data).toMatchObject({ phone, phone_verified: true, pending_phone: null });
  });

  it("refuses another account's verified phone at once, and its email at verification", async () => {
    const first = await api.verifiedAccount();
    const second = await api.verifiedAccount();
    const phone = uniquePhone();
    await api.call('PUT', '/profile/update', {
      token: first.tokens.access_token,
      body: { phone_number: phone, current_password: first.password },
    });
    await api.post('/otp/verify/mobile', { mobile_number: phone, otp: await api.codeFor(phone) });

    const phoneTaken = await api.call('PUT', '/profile/update', {
      token: second.tokens.access_token,
      body: { phone_number: phone, current_password: second.password },
    });
    // An email change says nothing at the request (no enumeration): its verification answers.
    const email = await api.call('PUT', '/profile/update', {
      token: second.tokens.access_token,
      body: { email: first.email, current_password: second.password },
    });
    const confirmed = await api.post('/otp/verify/email', {
      email: first.email,
      otp: await api.codeFor(first.email),
    });

    expect([phoneTaken.status, phoneTaken.body.error.details[0].field]).toEqual([
      409,
      'phone_number',
    ]);
    expect(email.status).toBe(200);
    expect([confirmed.status, confirmed.body.error.details[0].field]).toEqual([409, 'email']);
  });
});

describe('refresh token lifetime', () => {
  // Last: it moves the service's clock by 30 days.
  it('expires a refresh token 30 days after it was issued', async () => {
    const { tokens } = await api.verifiedAccount();
    await api.advanceClock(30 * 24 * 3600 + 60);

    const answer = await api.post('/auth/refresh-token', { refresh_token: tokens.refresh_token });

    expect([answer.status, answer.body.error.code]).toEqual([401, 'invalid_token']);
  });
});
