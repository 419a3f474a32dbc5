import { beforeAll, describe, expect, it } from 'vitest';
import { login } from '../../../shared/domain/accounts/login.js';
import { updateProfile } from '../../../shared/domain/accounts/profile.js';
import { signup, verifySignup } from '../../../shared/domain/accounts/signup.js';
import { useFreshTable } from '../../support/table.js';
import { signedUpUser, type TestAccounts, testAccounts, uniqueEmail } from './support.js';

let accounts: TestAccounts;

beforeAll(async () => {
  await useFreshTable();
  accounts = await testAccounts();
});

describe('signup with a taken email', () => {
  it('lets the latest signup of a pending account set its name and password', async () => {
    const email = uniqueEmail();
    await signup(accounts.deps, accounts.queue, { name: 'Ada', email, password: 'first password' });
    await signup(accounts.deps, accounts.queue, {
      name: 'Eve',
      email,
      password: 'second password',
    });

    const pair = await verifySignup(accounts.deps, accounts.codes, {
      email,
      otp: accounts.codes.lastCode(email, 'signup'),
    });

    expect(pair.user.name).toBe('Eve');
    await expect(login(accounts.deps, { email, password: 'first password' })).rejects.toMatchObject(
      { code: 'invalid_credentials' },
    );
    expect((await login(accounts.deps, { email, password: 'second password' })).user.id).toBe(
      pair.user.id,
    );
  });

  it('never sets the password of an account whose new email awaits its code', async () => {
    const owner = await signedUpUser(accounts, uniqueEmail(), 'owner password');
    const newEmail = uniqueEmail();
    await updateProfile(accounts.deps, owner.user.id, { email: newEmail }, async () => undefined);

    await signup(accounts.deps, accounts.queue, {
      name: 'Mallory',
      email: newEmail,
      password: 'mallory password',
    });

    // The owner's password is still the one that works: 403 (verify the email first), not 401.
    await expect(
      login(accounts.deps, { email: newEmail, password: 'owner password' }),
    ).rejects.toMatchObject({ code: 'email_not_verified' });
    await expect(
      login(accounts.deps, { email: newEmail, password: 'mallory password' }),
    ).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect((await accounts.deps.users.get(owner.user.id))?.name).toBe('Ada');
  });
});
