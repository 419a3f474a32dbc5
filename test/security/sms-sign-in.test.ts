import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoUserRepository } from '../../shared/adapters/dynamo-users.js';
import { accountDirectory } from '../../shared/domain/accounts/directory.js';
import { signup } from '../../shared/domain/accounts/signup.js';
import { verifySignup } from '../../shared/domain/accounts/signup-activation.js';
import { Refusal } from '../../shared/domain/errors.js';
import {
  type TestAccounts,
  testAccounts,
  testClient,
  uniqueEmail,
} from '../domain/accounts/support.js';
import { useFreshTable } from '../support/table.js';

/**
 * Signing in by SMS proves the phone only if the phone was proven before: the code went to
 * whoever holds the number, and a number written into an account by its signer proves nothing
 * (docs/accounts.md, "Identity lifecycle"). So the sign-in never marks a phone verified, and starts
 * no session for a phone its account has not verified — whatever code the caller holds.
 */

let accounts: TestAccounts;

beforeAll(async () => {
  await useFreshTable();
  accounts = await testAccounts();
});

let numbers = 0;
const uniquePhone = () => `+1415${String(3_000_000 + (Date.now() % 1_000_000) + numbers++)}`;

/** An active account whose phone was written at signup and never verified. */
async function activeAccountWithUnverifiedPhone() {
  const email = uniqueEmail();
  const phone = uniquePhone();
  await signup(
    { ...accounts.deps, codeQueue: accounts.queue },
    {
      name: 'Signer',
      email,
      phone,
      password: 'correct horse battery',
    },
  );
  const signedIn = await verifySignup(
    { ...accounts.deps, codes: accounts.codes, codeQueue: accounts.queue },
    { email, otp: accounts.codes.lastCode(email, 'signup') },
    testClient,
  );
  return { userId: signedIn.user.id, phone };
}

describe('signing in by SMS', () => {
  it('starts no session for an unverified phone and never marks it verified', async () => {
    const { userId, phone } = await activeAccountWithUnverifiedPhone();
    const directory = accountDirectory(accounts.deps);

    const refusal = await directory.signInWithPhone(userId, phone, testClient).then(
      () => undefined,
      (error: unknown) => error,
    );

    // The account no longer matches what the sign-in checked: answered 409 conflict.
    expect(refusal).toBeInstanceOf(Refusal);
    expect(refusal).toMatchObject({ reason: 'accountChanged' });
    const account = await dynamoUserRepository.get(userId);
    expect(account?.phone).toBeNull();
    // The activation's own session is the only one.
    const sessions = await accounts.deps.sessions.list(
      userId,
      accounts.clock.now(),
      {},
      {
        page: 1,
        perPage: 20,
      },
    );
    expect(sessions.items).toHaveLength(1);
  });
});
