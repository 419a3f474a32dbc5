import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import { required } from '../config.js';
import {
  AccessTokens,
  AccessTokenVerifier,
  signingKeyFromSeed,
  type VerificationKey,
  verificationKeyFromJwk,
} from '../domain/accounts/access-tokens.js';
import type { TokenKeys } from '../domain/accounts/deps.js';
import { systemClock } from '../domain/clock.js';
import { getItem, putIf } from './dynamodb.js';
import { keys } from './keys.js';
import { refreshing } from './refreshing.js';
import { secretValues } from './secrets.js';

/**
 * Who holds which access-token key. Only the functions that issue tokens (login, refresh, the
 * sign-ins by code) read the secret JWT_SIGNING_KEYS: comma-separated seeds, newest first; the
 * newest signs, all verify; a seed written `next:<seed>` verifies but does not sign yet — the
 * first step of a rotation. Before an issuer signs with a set of keys it publishes their public
 * halves in the table item ACCESS_TOKEN_KEYS (a JWKS). Every other function that checks a token,
 * and the JWKS document, reads that item, and holds no seed: a flaw in any of them cannot mint a
 * token, and IAM lets them read the item but never write it.
 *
 * Both sides re-read what they hold once a minute (`secretRefreshMs`, `publishedKeysRefreshMs`),
 * so a rotation is a change of the secret and nothing else (docs/operations.md, "Rotating the
 * token signing keys").
 */
const upcomingPrefix = 'next:';

/** How long a function checks tokens with the keys it read before it reads them again. */
export const publishedKeysRefreshMs = 60_000;

let signing: { seeds: string; keys: Promise<TokenKeys> } | undefined;

/** The signing keys of the seeds JWT_SIGNING_KEYS holds now, published before they are returned. */
export async function tokenKeys(): Promise<TokenKeys> {
  const values = await secretValues('JWT_SIGNING_KEYS');
  const seeds = values.join(',');
  if (signing?.seeds !== seeds) {
    const loaded = signingKeysOf(values);
    signing = { seeds, keys: loaded };
    loaded.catch(() => {
      if (signing?.keys === loaded) signing = undefined;
    });
  }
  return signing.keys;
}

async function signingKeysOf(values: readonly string[]): Promise<TokenKeys> {
  const upcoming = values.filter((value) => value.startsWith(upcomingPrefix));
  const seeds = values.filter((value) => !value.startsWith(upcomingPrefix));
  if (seeds.length === 0) throw new Error('Secret JWT_SIGNING_KEYS holds no signing seed');
  const accessTokens = new AccessTokens(
    await Promise.all(seeds.map(signingKeyFromSeed)),
    required('JWT_ISSUER'),
    required('JWT_AUDIENCE'),
    systemClock,
    await Promise.all(
      upcoming.map((value) => signingKeyFromSeed(value.slice(upcomingPrefix.length))),
    ),
  );
  await publish(accessTokens.jwks().keys);
  return {
    accessTokens,
    // Domain-separated from the signing key derived from the same seed.
    refreshSuccessorKey: createHash('sha256')
      .update(`refresh-token-successor\0${seeds[0]}`)
      .digest(),
  };
}

/**
 * Writes the public keys unless the item holds exactly these already: one conditional PutItem
 * per issuer and set of seeds, so a rotation costs one write per running issuer, and a request
 * never writes. A refused condition means another issuer published the same set first.
 */
async function publish(published: JWK[]): Promise<void> {
  const kids = published.map((key) => key.kid).join(',');
  await putIf({
    Item: { ...keys.accessTokenKeys(), keys: JSON.stringify({ keys: published }), kids },
    ConditionExpression: 'attribute_not_exists(pk) OR kids <> :kids',
    ExpressionAttributeValues: { ':kids': kids },
  });
}

/**
 * What checks access tokens here: the keys the issuers published. Nothing published yet (a stage
 * where no one has signed in) is not remembered, so the first token issued is accepted at once.
 */
export const tokenVerifier: () => Promise<AccessTokenVerifier> = refreshing(
  'the published access-token keys',
  publishedKeysRefreshMs,
  async () =>
    new AccessTokenVerifier(
      await publishedKeys(),
      required('JWT_ISSUER'),
      required('JWT_AUDIENCE'),
      systemClock,
    ),
  (verifier) => verifier.jwks().keys.length > 0,
);

async function publishedKeys(): Promise<VerificationKey[]> {
  const item = await getItem(keys.accessTokenKeys(), { consistent: false });
  if (item === undefined) return [];
  const { keys: jwks } = JSON.parse(String(item.keys)) as { keys: JWK[] };
  const verified = await Promise.all(jwks.map(verificationKeyFromJwk));
  return verified.filter((key): key is VerificationKey => key !== undefined);
}
