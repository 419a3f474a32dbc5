import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { AccessTokens, signingKeyFromSeed } from '../../../shared/domain/accounts/access-tokens.js';
import { ManualClock } from '../../../shared/domain/clock.js';

const claims = { userId: 'usr_a', sessionId: 'ses_a' };

async function tokensWith(seeds: string[], upcoming: string[], clock = new ManualClock()) {
  return new AccessTokens(
    await Promise.all(seeds.map(signingKeyFromSeed)),
    'https://issuer.test',
    'aud',
    clock,
    await Promise.all(upcoming.map(signingKeyFromSeed)),
  );
}

describe('access tokens', () => {
  it('are compact JWS that a standard library verifies against the published keys, with the contract’s claims', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 12, 0, 0));
    const tokens = await tokensWith(['signer'], [], clock);
    const token = await tokens.issue(claims);

    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(tokens.jwks()), {
      issuer: 'https://issuer.test',
      audience: 'aud',
      currentDate: new Date(clock.now()),
    });

    expect(protectedHeader).toEqual({
      alg: 'EdDSA',
      typ: 'JWT',
      kid: (await signingKeyFromSeed('signer')).kid,
    });
    const iat = clock.now() / 1000;
    expect(payload).toEqual({
      iss: 'https://issuer.test',
      aud: 'aud',
      sub: 'usr_a',
      sid: 'ses_a',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat,
      exp: iat + 900,
    });
    const [header, body, signature = ''] = token.split('.');
    const tampered = `${header}.${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    await expect(tokens.verify(tampered)).rejects.toMatchObject({ code: 'invalid_token' });
  });
});

describe('an access token issued again', () => {
  it('is the same text from the same stamp, on any function that holds its key, even a rotation later', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 12, 0, 0));
    const first = await tokensWith(['old'], ['new'], clock);
    const stamp = {
      id: 'c0ffee00-0000-8000-8000-000000000000',
      issuedAt: clock.now(),
      kid: first.signerKid,
    };
    const token = await first.issue(claims, stamp);
    clock.advance(9_000);
    // Another function, deployed with the new key signing: it still holds the old one.
    const later = await tokensWith(['new', 'old'], [], clock);

    expect(await first.issue(claims, stamp)).toBe(token);
    expect(await later.issue(claims, stamp)).toBe(token);
    expect(await later.issue(claims)).not.toBe(token);
    expect(await later.verify(token)).toEqual(claims);
  });
});

describe('access-token key rotation', () => {
  it('derives the same key from the same seed, so every function agrees', async () => {
    const [a, b] = await Promise.all([signingKeyFromSeed('seed'), signingKeyFromSeed('seed')]);
    expect(a.kid).toBe(b.kid);
    expect(a.publicJwk).toEqual(b.publicJwk);
  });

  it('publishes an upcoming key before it signs', async () => {
    const before = await tokensWith(['old'], ['new']);
    const newKey = await signingKeyFromSeed('new');
    const oldKey = await signingKeyFromSeed('old');

    const token = await before.issue(claims);

    expect(decodeProtectedHeader(token).kid).toBe(oldKey.kid);
    expect(before.jwks().keys.map((key) => key.kid)).toEqual([newKey.kid, oldKey.kid]);
  });

  it('keeps verifying tokens of the old key once the new one signs', async () => {
    const clock = new ManualClock();
    const before = await tokensWith(['old'], [], clock);
    const after = await tokensWith(['new', 'old'], [], clock);
    const oldToken = await before.issue(claims);

    const newToken = await after.issue(claims);

    expect(await after.verify(oldToken)).toEqual(claims);
    expect(decodeProtectedHeader(newToken).kid).toBe((await signingKeyFromSeed('new')).kid);
    await expect(before.verify(newToken)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuses a token after its 15 minutes, but logout still recognises it', async () => {
    const clock = new ManualClock();
    const tokens = await tokensWith(['k'], [], clock);
    const token = await tokens.issue(claims);
    clock.advance(15 * 60 * 1000 + 1000);

    await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(await tokens.verifyForLogout(token)).toEqual(claims);
    expect(await tokens.verifyForLogout('not.a.token')).toBeUndefined();
  });
});
