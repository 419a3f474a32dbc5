import { beforeAll, describe, expect, it } from 'vitest';
import { login } from '../../../shared/domain/accounts/login.js';
import { updateProfile } from '../../../shared/domain/accounts/profile.js';
import { signup } from '../../../shared/domain/accounts/signup.js';
import { verifySignup } from '../../../shared/domain/accounts/signup-activation.js';
import type { User } from '../../../shared/domain/accounts/user.js';
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

const activate = (email: string) =>
  verifySignup(
    { ...accounts.deps, codes: accounts.codes, codeQueue: accounts.queue },
    { email, otp: accounts.codes.lastCode(email, 'signup') },
    testClient,
  );

const loginWith = (email: string, password: string) =>
  tokensOf(login(accounts.deps, { email, password }, testClient));

/**
 * Activates the signup of `email`, running `meanwhile` once between the activation's first read
 * of the account and its write: what lands there must fail the write, and the activation reads
 * again.
 */
function activateRacing(email: string, meanwhile: (read: User) => Promise<unknown>) {
  let ran = false;
  const racing = {
    ...accounts.deps,
    users: {
      ...accounts.deps.users,
      findByEmail: async (address: string) => {
        const before = await accounts.deps.users.findByEmail(address);
        if (!ran && before !== undefined) {
          ran = true;
          await meanwhile(before);
        }
        return before;
      },
    },
  };
  return verifySignup(
    { ...racing, codes: accounts.codes, codeQueue: accounts.queue },
    { email, otp: accounts.codes.lastCode(email, 'signup') },
    testClient,
  );
}

describe('signup with a taken email', () => {
  it('keeps no password of two signups that met on one pending email', async () => {
    const email = uniqueEmail();
    await signup(
      { ...accounts.deps, codeQueue: accounts.queue },
      { name: 'Ada', email, password: 'first password' },
    );
    await signup(
      { ...accounts.deps, codeQueue: accounts.queue },
      {
        name: 'Eve',
        email,
        password: 'second password',
      },
    );

    const pair = await activate(email);

    expect(pair.passwordResetRequired).toBe(true);
    expect(pair.user.name).toBe(email.slice(0, email.indexOf('@')));
    for (const password of ['first password', 'second password']) {
      await expect(loginWith(email, password)).rejects.toMatchObject({
        code: 'invalid_credentials',
      });
    }
  });

  it('keeps the name when every signup gave the same one', async () => {
    const email = uniqueEmail();
    for (const password of ['first password', 'second password']) {
      await signup(
        { ...accounts.deps, codeQueue: accounts.queue },
        { name: 'Ada', email, password },
      );
    }

    const pair = await activate(email);

    expect(pair).toMatchObject({ passwordResetRequired: true, user: { name: 'Ada' } });
  });

  it('activates a signup contested after its read as contested', async () => {
    const email = uniqueEmail();
    await signup(
      { ...accounts.deps, codeQueue: accounts.queue },
      { name: 'Ada', email, password: 'first password' },
    );
    // A second signup lands between the activation's read and its write.
    const pair = await activateRacing(email, () =>
      signup(
        { ...accounts.deps, codeQueue: accounts.queue },
        { name: 'Eve', email, password: 'second password' },
      ),
    );

    expect(pair.passwordResetRequired).toBe(true);
    await expect(loginWith(email, 'first password')).rejects.toMatchObject({
      code: 'invalid_credentials',
    });
  });

  it('activates as a recovery a signup for which forgot-password was asked after its read', async () => {
    const email = uniqueEmail();
    await signup(
      { ...accounts.deps, codeQueue: accounts.queue },
      { name: 'Mallory', email, password: 'stranger password' },
    );
    // The inbox owner's forgot-password marks the signup between the activation's read and write.
    const pair = await activateRacing(email, (read) =>
      accounts.deps.users.markSignupRecovery(read.id, email),
    );

    expect(pair.passwordResetRequired).toBe(true);
    expect(pair.user.name).toBe(email.slice(0, email.indexOf('@')));
    await expect(loginWith(email, 'stranger password')).rejects.toMatchObject({
      code: 'invalid_credentials',
    });
  });

  it('never touches an account whose owner changes its email to the signup email', async () => {
    const owner = await signedUpUser(accounts, uniqueEmail(), 'owner password');
    const newEmail = uniqueEmail();
    await updateProfile(
      { ...accounts.deps, codeQueue: accounts.queue },
      { userId: owner.user.id, source: testClient.source },
      { email: newEmail, currentPassword: 'owner password' },
    );

    await signup(
      { ...accounts.deps, codeQueue: accounts.queue },
      {
        name: 'Mallory',
        email: newEmail,
        password: 'mallory password',
      },
    );
    const mallory = await activate(newEmail);

    expect(mallory.user.id).not.toBe(owner.user.id);
    const account = await accounts.deps.users.get(owner.user.id);
    expect(account).toMatchObject({ name: 'Ada', email: owner.user.email, pendingEmail: newEmail });
    expect((await loginWith(owner.user.email, 'owner password')).user.id).toBe(owner.user.id);
  });
});
