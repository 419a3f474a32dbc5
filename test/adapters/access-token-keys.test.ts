import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  publishedKeysRefreshMs,
  tokenKeys,
  tokenVerifier,
} from '../../shared/adapters/access-token-keys.js';
import { dynamo } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import { AccessTokens, signingKeyFromSeed } from '../../shared/domain/accounts/access-tokens.js';
import { advanceSystemClock, systemClock } from '../../shared/domain/clock.js';
import { useFreshTable } from '../support/table.js';

/**
 * The functions that issue tokens hold the seeds and publish the public keys; every other function
 * checks tokens with what was published, and holds nothing that signs.
 */
const claims = { userId: 'usr_a', sessionId: 'ses_a' };
const issuer = 'https://issuer.test';
const audience = 'test-audience';
let table = '';

const published = async () =>
  (await dynamo().send(new GetCommand({ TableName: table, Key: keys.accessTokenKeys() }))).Item;
const kidOf = async (seed: string) => (await signingKeyFromSeed(seed)).kid;
/** A token as an issuer of these seeds signs it. */
const signedWith = async (seed: string) =>
  new AccessTokens([await signingKeyFromSeed(seed)], issuer, audience, systemClock).issue(claims);

beforeAll(async () => {
  table = await useFreshTable();
  process.env.JWT_ISSUER = issuer;
  process.env.JWT_AUDIENCE = audience;
});

describe('the access-token keys', () => {
  it('are published by an issuer before it signs, and verify wherever tokens are checked', async () => {
    process.env.JWT_SIGNING_KEYS = 'seed-one';
    expect(await published()).toBeUndefined();
    // Nothing published yet is not held: the first token issued is accepted at once.
    expect((await tokenVerifier()).jwks().keys).toEqual([]);

    const { accessTokens } = await tokenKeys();
    const token = await accessTokens.issue(claims);

    expect(JSON.parse(String((await published())?.keys))).toEqual(accessTokens.jwks());
    expect(await (await tokenVerifier()).verify(token)).toEqual(claims);
  });

  it('refuse a token signed with a key no issuer published', async () => {
    // Someone holding a seed of their own signs a token for any user: no verifier knows its kid.
    const forged = await signedWith('an-attackers-seed');
    await expect((await tokenVerifier()).verify(forged)).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });

  it('ignore a published key whose kid is not its own thumbprint', async () => {
    const genuine = (await signingKeyFromSeed('seed-one')).publicJwk;
    const impostor = (await signingKeyFromSeed('another-seed')).publicJwk;
    await dynamo().send(
      new PutCommand({
        TableName: table,
        Item: {
          ...keys.accessTokenKeys(),
          keys: JSON.stringify({ keys: [genuine, { ...impostor, kid: 'chosen-kid' }] }),
          kids: 'tampered',
        },
      }),
    );
    advanceSystemClock(publishedKeysRefreshMs);

    expect((await tokenVerifier()).jwks().keys).toEqual([genuine]);
  });

  it('rotate by a change of the secret alone: published first, then signing, checked within a minute', async () => {
    // Step 1: the new seed is published but does not sign.
    process.env.JWT_SIGNING_KEYS = 'next:seed-two,seed-one';
    const step1 = await (await tokenKeys()).accessTokens.issue(claims);
    expect(decodeProtectedHeader(step1).kid).toBe(await kidOf('seed-one'));
    expect(String((await published())?.kids).split(',')).toEqual([
      await kidOf('seed-two'),
      await kidOf('seed-one'),
    ]);

    // Step 2, once verifiers hold the published keys: the new seed signs, the old one verifies.
    advanceSystemClock(publishedKeysRefreshMs);
    process.env.JWT_SIGNING_KEYS = 'seed-two,seed-one';
    const step2 = await (await tokenKeys()).accessTokens.issue(claims);
    expect(decodeProtectedHeader(step2).kid).toBe(await kidOf('seed-two'));
    const verifier = await tokenVerifier();
    expect(await verifier.verify(step2)).toEqual(claims);
    expect(await verifier.verify(step1)).toEqual(claims);

    // Step 3: the old seed is gone; its tokens are refused once verifiers read the keys again.
    process.env.JWT_SIGNING_KEYS = 'seed-two';
    await tokenKeys();
    advanceSystemClock(publishedKeysRefreshMs);
    await expect((await tokenVerifier()).verify(step1)).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });
});
