import { decodeProtectedHeader } from 'jose';
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
