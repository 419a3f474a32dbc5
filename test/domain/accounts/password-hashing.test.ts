import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '../../../shared/adapters/dynamodb.js';
import { keys } from '../../../shared/adapters/keys.js';
import { tableName } from '../../../shared/config.js';
import { login } from '../../../shared/domain/accounts/login.js';
import {
  hashPassword,
  needsRehash,
  verifyPassword,
} from '../../../shared/domain/accounts/password-hashing.js';
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
    const weak = await hashPassword('old and weak', {
      memoryKib: 4096,
      iterations: 1,
      parallelism: 1,
    });
    expect(needsRehash(weak)).toBe(true);
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.user(user.id),
        UpdateExpression: 'SET password_hash = :weak',
        ExpressionAttributeValues: { ':weak': weak },
      }),
    );

    await login(accounts.deps, { email, password: 'old and weak' }, testClient);

    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.user(user.id) }),
    );
    expect(Item?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword('old and weak', String(Item?.password_hash))).toBe(true);
  });
});
