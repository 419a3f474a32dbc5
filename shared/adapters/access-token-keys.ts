import { createHash } from 'node:crypto';
import { required, secretValues } from '../config.js';
import { AccessTokens, signingKeyFromSeed } from '../domain/accounts/access-tokens.js';
import type { TokenKeys } from '../domain/accounts/deps.js';
import { systemClock } from '../domain/clock.js';

/**
 * The signing material of this process, built once per cold start from the secret
 * JWT_SIGNING_KEYS (comma-separated seeds, newest first: the newest signs, all verify and are
 * published in the JWKS; a seed written `next:<seed>` is published and verifies but does not
 * sign yet — the first step of a rotation), JWT_ISSUER and JWT_AUDIENCE.
 */
const upcomingPrefix = 'next:';

let loaded: Promise<TokenKeys> | undefined;

async function load(): Promise<TokenKeys> {
  const values = await secretValues('JWT_SIGNING_KEYS');
  const upcoming = values.filter((value) => value.startsWith(upcomingPrefix));
  const seeds = values.filter((value) => !value.startsWith(upcomingPrefix));
  if (seeds.length === 0) throw new Error('Secret JWT_SIGNING_KEYS holds no signing seed');
  return {
    accessTokens: new AccessTokens(
      await Promise.all(seeds.map(signingKeyFromSeed)),
      required('JWT_ISSUER'),
      required('JWT_AUDIENCE'),
      systemClock,
      await Promise.all(
        upcoming.map((value) => signingKeyFromSeed(value.slice(upcomingPrefix.length))),
      ),
    ),
    // Domain-separated from the signing key derived from the same seed.
    refreshSuccessorKey: createHash('sha256')
      .update(`refresh-token-successor\0${seeds[0]}`)
      .digest(),
  };
}

export function tokenKeys(): Promise<TokenKeys> {
  if (loaded === undefined) {
    loaded = load();
    loaded.catch(() => {
      loaded = undefined;
    });
  }
  return loaded;
}
