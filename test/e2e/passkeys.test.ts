import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { AccountClient } from './accounts-support.js';

/**
 * Passkey ceremonies through `npm start`'s runtime as a client app and an attacker would drive
 * them: without an authenticator (answers forged, malformed or meant for another account), and
 * with one in software that signs what a browser never would (another origin, another relying
 * party id, a counter that went back). What a browser's authenticator does is the dashboard
 * test's (Chromium's virtual authenticator): adding one, signing in with it, another account's use.
 */

let service: LocalService;
let client: AccountClient;

beforeAll(async () => {
  service = await startLocalService();
  client = new AccountClient(service);
});

afterAll(async () => {
  await service?.stop();
});

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An answer as a browser would post it, of `type`, its client data naming `challenge`. */
const forged = (type: 'webauthn.get' | 'webauthn.create', challenge: string, response: object) => ({
  credential: {
    id: 'Zm9yZ2VkLWNyZWRlbnRpYWw',
    rawId: 'Zm9yZ2VkLWNyZWRlbnRpYWw',
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: base64url({ type, challenge, origin: service.origin }),
      ...response,
    },
  },
});

const forgedSignIn = (challenge: string) =>
  forged('webauthn.get', challenge, {
    authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ',
    signature: 'MEUCIQDmc2lnbmF0dXJl',
  });

const forgedRegistration = (challenge: string) =>
  forged('webauthn.create', challenge, {
    attestationObject: 'o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVg',
  });

describe('passkeys, without an authenticator', () => {
  it('asks a sign-in for no email and no credential, bound to the dashboard’s host', async () => {
    const answer = await client.call('POST', '/auth/passkeys/authentication-options');

    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      rpId: 'localhost',
      userVerification: 'required',
    });
    expect(answer.body.data.allowCredentials ?? []).toEqual([]);
  });

  it('refuses a sign-in answer with a challenge it never issued, or one forged for a real challenge, as the same 401', async () => {
    const options = await client.call('POST', '/auth/passkeys/authentication-options');

    const unknown = await client.call('POST', '/auth/passkeys/login', {
      body: forgedSignIn('bm90LWlzc3VlZC1ieS10aGUtc2VydmljZQ'),
    });
    const forged = await client.call('POST', '/auth/passkeys/login', {
      body: forgedSignIn(options.body.data.challenge),
    });

    for (const answer of [unknown, forged]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('invalid_credentials');
    }
  });

  it('answers a malformed answer 400 naming its field, never a 500', async () => {
    const answer = await client.call('POST', '/auth/passkeys/login', {
      body: {
        credential: {
          id: 'x',
          rawId: 'x',
          type: 'public-key',
          response: { clientDataJSON: 'not base64url!' },
        },
      },
    });

    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect(JSON.stringify(answer.body.error.details)).toContain('clientDataJSON');
  });

  it('gives registration options only for the current password, naming the account', async () => {
    const account = await client.verifiedAccount();
    const token = account.tokens.access_token;

    const refused = await client.call('POST', '/auth/passkeys/registration-options', {
      body: { current_password: 'a guess' },
      token,
    });
    const options = await client.call('POST', '/auth/passkeys/registration-options', {
      body: { current_password: account.password },
      token,
    });

    expect(refused.status).toBe(401);
    expect(options.status).toBe(200);
    expect(options.body.data).toMatchObject({
      rp: { id: 'localhost' },
      user: { name: account.email },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
  });

  it('does not let one account answer another account’s registration challenge, nor use a sign-in challenge to register', async () => {
    const victim = await client.verifiedAccount();
    const attacker = await client.verifiedAccount();
    const victimOptions = await client.call('POST', '/auth/passkeys/registration-options', {
      body: { current_password: victim.password },
      token: victim.tokens.access_token,
    });
    const signInOptions = await client.call('POST', '/auth/passkeys/authentication-options');

    const intoAttacker = await client.call('POST', '/auth/passkeys', {
      body: forgedRegistration(victimOptions.body.data.challenge),
      token: attacker.tokens.access_token,
    });
    const withSignInChallenge = await client.call('POST', '/auth/passkeys', {
      body: forgedRegistration(signInOptions.body.data.challenge),
      token: attacker.tokens.access_token,
    });

    for (const answer of [intoAttacker, withSignInChallenge]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
    }
    const listed = await client.call('GET', '/auth/passkeys', {
      token: attacker.tokens.access_token,
    });
    expect(listed.body.data).toEqual([]);
  });

  it('answers 404 for removing a passkey the caller does not have', async () => {
    const account = await client.verifiedAccount();

    const answer = await client.call('DELETE', '/auth/passkeys/Zm9yZ2VkLWNyZWRlbnRpYWw', {
      token: account.tokens.access_token,
    });

    expect(answer.status).toBe(404);
  });
});

describe('passkeys, with an authenticator that signs what it is told', () => {
  const here = () => ({ origin: service.origin, rpId: 'localhost' });

  /** A verified account with a software passkey added (with its password). */
  async function accountWithPasskey() {
    const account = await client.verifiedAccount();
    const authenticator = new SoftAuthenticator();
    const options = await client.call('POST', '/auth/passkeys/registration-options', {
      body: { current_password: account.password },
      token: account.tokens.access_token,
    });
    const added = await client.call('POST', '/auth/passkeys', {
      body: { credential: authenticator.register(options.body.data, here()) },
      token: account.tokens.access_token,
    });
    expect(added.status).toBe(201);
    return { account, authenticator };
  }

  const signInOptions = async () =>
    (await client.call('POST', '/auth/passkeys/authentication-options')).body.data;

  it('signs in with the passkey, as the account it was added to, once per challenge', async () => {
    const { account, authenticator } = await accountWithPasskey();
    const answer = authenticator.signIn(await signInOptions(), here());

    const signedIn = await client.call('POST', '/auth/passkeys/login', {
      body: { credential: answer },
    });
    const replayed = await client.call('POST', '/auth/passkeys/login', {
      body: { credential: answer },
    });

    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.user).toMatchObject({
      id: account.tokens.user.id,
      email: account.email,
    });
    expect(signedIn.body.data.access_token).toEqual(expect.any(String));
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.code).toBe('invalid_credentials');
  });

  it('refuses a sign-in signed for another origin or another relying party id, as the same 401', async () => {
    const { authenticator } = await accountWithPasskey();

    const phished = await client.call('POST', '/auth/passkeys/login', {
      body: {
        credential: authenticator.signIn(await signInOptions(), {
          ...here(),
          origin: 'https://accounts-login.example',
        }),
      },
    });
    const otherParty = await client.call('POST', '/auth/passkeys/login', {
      body: {
        credential: authenticator.signIn(await signInOptions(), {
          ...here(),
          rpId: 'accounts-login.example',
        }),
      },
    });

    for (const answer of [phished, otherParty]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('invalid_credentials');
    }
    // The passkey itself still works where it belongs.
    const signedIn = await client.call('POST', '/auth/passkeys/login', {
      body: { credential: authenticator.signIn(await signInOptions(), here()) },
    });
    expect(signedIn.status).toBe(200);
  });

  it('refuses a sign-in whose counter went back, as a cloned authenticator’s would', async () => {
    const { authenticator } = await accountWithPasskey();
    const first = await client.call('POST', '/auth/passkeys/login', {
      body: { credential: authenticator.signIn(await signInOptions(), here()) },
    });

    authenticator.counter = 0;
    const clone = await client.call('POST', '/auth/passkeys/login', {
      body: { credential: authenticator.signIn(await signInOptions(), here()) },
    });

    expect(first.status).toBe(200);
    expect(clone.status).toBe(401);
    expect(clone.body.error.code).toBe('invalid_credentials');
  });

  it('does not add a passkey created for another origin or relying party id, and adds none twice', async () => {
    const account = await client.verifiedAccount();
    const token = account.tokens.access_token;
    const added = async (
      where: { origin: string; rpId: string },
      authenticator = new SoftAuthenticator(),
    ) => {
      const options = await client.call('POST', '/auth/passkeys/registration-options', {
        body: { current_password: account.password },
        token,
      });
      return client.call('POST', '/auth/passkeys', {
        body: { credential: authenticator.register(options.body.data, where) },
        token,
      });
    };

    const phished = await added({ ...here(), origin: 'https://accounts-login.example' });
    const otherParty = await added({ ...here(), rpId: 'accounts-login.example' });
    const authenticator = new SoftAuthenticator();
    const first = await added(here(), authenticator);
    const again = await added(here(), authenticator);

    for (const answer of [phished, otherParty]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
    }
    expect(first.status).toBe(201);
    expect(again.status).toBe(409);
    const listed = await client.call('GET', '/auth/passkeys', { token });
    expect(listed.body.data.map((passkey: { id: string }) => passkey.id)).toEqual([
      authenticator.id,
    ]);
  });

  it('does not sign in with a passkey once it is removed, nor let another account remove it', async () => {
    const { account, authenticator } = await accountWithPasskey();
    const other = await client.verifiedAccount();

    const byOther = await client.call('DELETE', `/auth/passkeys/${authenticator.id}`, {
      token: other.tokens.access_token,
    });
    const removed = await client.call('DELETE', `/auth/passkeys/${authenticator.id}`, {
      token: account.tokens.access_token,
    });
    const afterwards = await client.call('POST', '/auth/passkeys/login', {
      body: { credential: authenticator.signIn(await signInOptions(), here()) },
    });

    expect(byOther.status).toBe(404);
    expect(removed.status).toBe(200);
    expect(afterwards.status).toBe(401);
  });
});
