import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '../../../shared/adapters/dynamodb.js';
import { tableName } from '../../../shared/config.js';
import { login } from '../../../shared/domain/accounts/login.js';
import { changePassword } from '../../../shared/domain/accounts/passwords.js';
import { logout, refreshSession } from '../../../shared/domain/accounts/sessions.js';
import { signup } from '../../../shared/domain/accounts/signup.js';
import { useFreshTable } from '../../support/table.js';
import {
  signedUpUser,
  type TestAccounts,
  testAccounts,
  testClient,
  tokensOf,
  uniqueEmail,
} from './support.js';

let accounts: TestAccounts;

beforeAll(async () => {
  await useFreshTable();
  accounts = await testAccounts();
});

const isLive = async (accessToken: string) => {
  const claims = await (await accounts.deps.tokenKeys()).accessTokens.verify(accessToken);
  return accounts.deps.sessions.isLive(claims.sessionId, claims.userId);
};

describe('signup uniqueness', () => {
  it('creates exactly one account when 20 signups race for one email', async () => {
    const email = uniqueEmail();
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        signup(
          { ...accounts.deps, codeQueue: accounts.queue },
          {
            name: `Racer ${index}`,
            email,
            password: `password-${index}`,
          },
        ),
      ),
    );
    const { Items } = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'email = :email AND begins_with(pk, :user)',
        ExpressionAttributeValues: { ':email': email, ':user': 'USER#' },
        ConsistentRead: true,
      }),
    );
    expect(Items).toHaveLength(1);
  }, 60_000);
});

describe('refresh rotation', () => {
  it('refuses a reused refresh token and revokes its session', async () => {
    const first = await signedUpUser(accounts);
    const second = await refreshSession(accounts.deps, first.refreshToken);
    accounts.clock.advance(11_000);

    await expect(refreshSession(accounts.deps, first.refreshToken)).rejects.toMatchObject({
      code: 'invalid_token',
    });

    await expect(refreshSession(accounts.deps, second.refreshToken)).rejects.toMatchObject({
      code: 'invalid_token',
    });
    expect(await isLive(first.accessToken).catch(() => false)).toBe(false);
  });

  it('gives concurrent refreshes of one token the same successor pair', async () => {
    const first = await signedUpUser(accounts);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => refreshSession(accounts.deps, first.refreshToken)),
    );
    const successors = new Set(results.map((result) => result.refreshToken));
    expect(successors.size).toBe(1);
    expect(new Set(results.map((result) => result.accessToken)).size).toBe(1);
    const next = await refreshSession(accounts.deps, results[0]!.refreshToken);
    expect(next.refreshToken).not.toBe(results[0]!.refreshToken);
  });

  it('gives no pair within the grace to a session that ended meanwhile', async () => {
    const first = await signedUpUser(accounts);
    const second = await refreshSession(accounts.deps, first.refreshToken);
    await logout(accounts.deps, second.accessToken);

    // A stolen copy of the rotated token, presented at once: the session is over.
    await expect(refreshSession(accounts.deps, first.refreshToken)).rejects.toMatchObject({
      code: 'invalid_token',
      message: 'The session of this refresh token has ended',
    });
  });

  it('expires a refresh token after 30 days', async () => {
    const first = await signedUpUser(accounts);
    accounts.clock.advance(30 * 24 * 3600 * 1000 + 1000);
    await expect(refreshSession(accounts.deps, first.refreshToken)).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });
});

describe('logout and password change', () => {
  it('ends the session at once on logout', async () => {
    const pair = await signedUpUser(accounts);
    expect(await isLive(pair.accessToken)).toBe(true);
    await logout(accounts.deps, pair.accessToken);
    expect(await isLive(pair.accessToken)).toBe(false);
  });

  it('revokes every other session on password change', async () => {
    const email = uniqueEmail();
    const mine = await signedUpUser(accounts, email, 'first password');
    const other = await tokensOf(
      login(accounts.deps, { email, password: 'first password' }, testClient),
    );
    const claims = await (await accounts.deps.tokenKeys()).accessTokens.verify(mine.accessToken);

    await changePassword(
      { ...accounts.deps, codeQueue: accounts.queue },
      { ...claims, source: testClient.source },
      {
        currentPassword: 'first password',
        newPassword: 'second password',
      },
    );

    expect(await isLive(mine.accessToken)).toBe(true);
    expect(await isLive(other.accessToken)).toBe(false);
    await expect(
      login(accounts.deps, { email, password: 'first password' }, testClient),
    ).rejects.toMatchObject({ code: 'invalid_credentials' });
  });

  it('starts no session for a login whose password was changed while it was being checked', async () => {
    const email = uniqueEmail();
    const mine = await signedUpUser(accounts, email, 'first password');
    const claims = await (await accounts.deps.tokenKeys()).accessTokens.verify(mine.accessToken);
    // The attacker's login reads the account, then the owner's change lands before its session.
    const racing = {
      ...accounts.deps,
      users: {
        ...accounts.deps.users,
        findByEmail: async (address: string) => {
          const before = await accounts.deps.users.findByEmail(address);
          await changePassword(
            { ...accounts.deps, codeQueue: accounts.queue },
            { ...claims, source: testClient.source },
            {
              currentPassword: 'first password',
              newPassword: 'second password',
            },
          );
          return before;
        },
      },
    };

    await expect(
      login(racing, { email, password: 'first password' }, testClient),
    ).rejects.toMatchObject({
      // Answered 409 conflict by the HTTP layer (answerOfRefusal).
      reason: 'accountChanged',
    });

    const { Items } = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :session)',
        ExpressionAttributeValues: { ':pk': `USER#${claims.userId}`, ':session': 'SESSION#' },
        ConsistentRead: true,
      }),
    );
    expect(Items?.map((item) => item.sk)).toEqual([`SESSION#${claims.sessionId}`]);
  });
});

describe('login', () => {
  it('locks an account for a while after repeated failures, then lets it in', async () => {
    const email = uniqueEmail();
    await signedUpUser(accounts, email, 'the right one');
    for (let attempt = 0; attempt < 5; attempt++) {
      await expect(
        login(accounts.deps, { email, password: 'wrong password' }, testClient),
      ).rejects.toMatchObject({ code: 'invalid_credentials' });
    }
    await expect(
      login(accounts.deps, { email, password: 'the right one' }, testClient),
    ).rejects.toMatchObject({
      code: 'too_many_attempts',
      retryAfterSeconds: 30,
    });
    accounts.clock.advance(31_000);
    const pair = await tokensOf(
      login(accounts.deps, { email, password: 'the right one' }, testClient),
    );
    expect(pair.accessToken).toEqual(expect.any(String));
  });

  it('locks an account even when the wrong guesses arrive all at once', async () => {
    const email = uniqueEmail();
    await signedUpUser(accounts, email, 'the right one');

    const guesses = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        login(accounts.deps, { email, password: 'wrong guess' }, testClient),
      ),
    );

    expect(guesses.every((guess) => guess.status === 'rejected')).toBe(true);
    await expect(
      login(accounts.deps, { email, password: 'the right one' }, testClient),
    ).rejects.toMatchObject({
      code: 'too_many_attempts',
    });
  });
});
