import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Secret, TOTP } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoOtpStore } from '../../../shared/adapters/dynamo-otp-store.js';
import { dynamo } from '../../../shared/adapters/dynamodb.js';
import { keys } from '../../../shared/adapters/keys.js';
import { tableName } from '../../../shared/config.js';
import { login } from '../../../shared/domain/accounts/login.js';
import { isChallenge } from '../../../shared/domain/accounts/mfa-challenge.js';
import {
  hashPassword,
  needsRehash,
  verifyPassword,
} from '../../../shared/domain/accounts/password-hashing.js';
import {
  confirmTotp,
  startTotpEnrolment,
  verifySecondFactor,
} from '../../../shared/domain/accounts/second-factor.js';
import { OtpEngine } from '../../../shared/domain/otp/engine.js';
import { useFreshTable } from '../../support/table.js';
import {
  signedUpUser,
  type TestAccounts,
  testAccounts,
  testClient,
  uniqueEmail,
} from './support.js';

let accounts: TestAccounts;

beforeAll(async () => {
  await useFreshTable();
  accounts = await testAccounts();
});

/** Puts a hash of `password` made with weaker parameters on the account; answers it. */
async function storeWeakHash(userId: string, password: string): Promise<string> {
  const weak = await hashPassword(password, { memoryKib: 4096, iterations: 1, parallelism: 1 });
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET password_hash = :weak',
      ExpressionAttributeValues: { ':weak': weak },
    }),
  );
  return weak;
}

/** The account's stored password hash. */
const storedHash = async (userId: string): Promise<string> =>
  String(
    (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.user(userId) }))).Item
      ?.password_hash,
  );

describe('password hashing', () => {
  it('stores Argon2id with its parameters in a PHC string and salts every hash', async () => {
    const [first, second] = await Promise.all([
      hashPassword('correct horse battery'),
      hashPassword('correct horse battery'),
    ]);
    expect(first).toMatch(
      /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
    );
    expect(first).not.toBe(second);
  });

  it('accepts the right password and refuses a wrong or malformed one', async () => {
    const phc = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', phc)).toBe(true);
    expect(await verifyPassword('correct horse batterY', phc)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'plain-text')).toBe(false);
  });

  it('verifies the hashes stored by the WebAssembly implementation it replaced', async () => {
    // Made by hash-wasm's argon2id, which hashed passwords before the native binding.
    const storedBefore = [
      {
        password: 'correct horse battery',
        phc: '$argon2id$v=19$m=19456,t=2,p=1$nDFmjAcXYPcaVHzyKY18eg$k38h3qhH1rnpwq+fCM+QxmJn58gUDnTD8FbxT6RTsRE',
      },
      {
        // NFKC-normalised before hashing, then as now.
        password: 'Ünïcödé pässwörd',
        phc: '$argon2id$v=19$m=4096,t=1,p=1$tPoBYqMAL32Hhiop6mHsWg$A4iL7u1BKnFykFjpJHI5ZRqcFLDkIlcNx0zauZuEj+4',
      },
    ];
    for (const { password, phc } of storedBefore) {
      expect(await verifyPassword(password, phc)).toBe(true);
      expect(await verifyPassword(`${password}!`, phc)).toBe(false);
    }
    expect(needsRehash(storedBefore[0]!.phc)).toBe(false);
    expect(needsRehash(storedBefore[1]!.phc)).toBe(true);
  });

  it('upgrades a hash made with weaker parameters at the next login', async () => {
    const email = uniqueEmail();
    const { user } = await signedUpUser(accounts, email, 'old and weak');
    const weak = await storeWeakHash(user.id, 'old and weak');
    expect(needsRehash(weak)).toBe(true);

    await login(accounts.deps, { email, password: 'old and weak' }, testClient);

    const upgraded = await storedHash(user.id);
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword('old and weak', upgraded)).toBe(true);
  });

  it('upgrades it on an account with an authenticator app too, once the sign-in shows a code', async () => {
    const email = uniqueEmail();
    const { user } = await signedUpUser(accounts, email, 'old and weak');
    const engine = new OtpEngine(dynamoOtpStore, accounts.clock, async () => 'unused');
    const deps = {
      ...accounts.deps,
      codeQueue: accounts.queue,
      guard: engine.guard.bind(engine),
    };
    const caller = { userId: user.id, source: testClient.source };
    const { secret } = await startTotpEnrolment(deps, caller, 'old and weak', 'Test');
    const codeAt = (epochMs: number) =>
      new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: epochMs });
    await confirmTotp(deps, caller, codeAt(accounts.clock.now()));
    const weak = await storeWeakHash(user.id, 'old and weak');

    const challenge = await login(accounts.deps, { email, password: 'old and weak' }, testClient);
    if (!isChallenge(challenge)) throw new Error('expected an MFA ticket');
    expect(await storedHash(user.id)).toBe(weak);
    accounts.clock.advance(30_000);
    await verifySecondFactor(deps, {
      ticket: challenge.ticket,
      proof: { code: codeAt(accounts.clock.now()) },
      source: testClient.source,
    });

    expect(await storedHash(user.id)).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});
