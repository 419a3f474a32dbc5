import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getProfileHandler } from '../../functions/profile/get-profile.js';
import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { aroundDynamoCalls } from '../../shared/adapters/dynamodb.js';
import { logout } from '../../shared/domain/accounts/sessions.js';
import { signup } from '../../shared/domain/accounts/signup.js';
import { verifySignup } from '../../shared/domain/accounts/signup-activation.js';
import {
  inlineSignupQueue,
  MemoryCodes,
  testClient,
  uniqueEmail,
} from '../domain/accounts/support.js';
import { invoke, restEvent } from '../support/events.js';
import { useFreshTable } from '../support/table.js';

const commands: string[] = [];

beforeAll(async () => {
  await useFreshTable();
  process.env.JWT_SIGNING_KEYS = 'authenticate-test-seed';
  process.env.JWT_ISSUER = 'https://issuer.test';
  process.env.JWT_AUDIENCE = 'test-audience';
  aroundDynamoCalls(async ({ operation }, next) => {
    commands.push(operation);
    return next();
  });
});

async function signedIn() {
  const deps = accountDependencies();
  const codes = new MemoryCodes();
  const email = uniqueEmail();
  const queue = inlineSignupQueue(deps, codes, []);
  await signup(
    { ...deps, codeQueue: queue },
    { name: 'Ada', email, password: 'correct horse battery' },
  );
  return verifySignup(
    { ...deps, codes: codes, codeQueue: queue },
    { email, otp: codes.lastCode(email, 'signup') },
    testClient,
  );
}

describe('authenticate', () => {
  it('resolves a live session with exactly one DynamoDB read, once the published keys are held', async () => {
    const pair = await signedIn();
    commands.length = 0;
    // The first check of a running function reads the published keys too (once a minute).
    await authenticate(`Bearer ${pair.accessToken}`);
    expect(commands).toEqual(['GetItem', 'GetItem']);
    commands.length = 0;

    const principal = await authenticate(`Bearer ${pair.accessToken}`);

    expect(principal).toEqual({ userId: pair.user.id, sessionId: expect.stringMatching(/^ses_/) });
    expect(commands).toEqual(['GetItem']);
  });

  it('answers unauthorized without a Bearer token and reads nothing', async () => {
    commands.length = 0;
    await expect(authenticate(undefined)).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(authenticate('Basic abc')).rejects.toMatchObject({ code: 'unauthorized' });
    expect(commands).toEqual([]);
  });

  it('refuses the token of a session that was logged out', async () => {
    const pair = await signedIn();
    await logout(accountDependencies(), pair.accessToken);

    await expect(authenticate(`Bearer ${pair.accessToken}`)).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });
});

describe('getProfile, which reads the session with the profile', () => {
  const getProfile = (accessToken?: string) =>
    invoke(
      getProfileHandler,
      restEvent({
        httpMethod: 'GET',
        headers: accessToken === undefined ? {} : { Authorization: `Bearer ${accessToken}` },
      }),
    );

  it('answers the profile in one round trip besides the rate-limit hit', async () => {
    const pair = await signedIn();
    commands.length = 0;

    const answer = await getProfile(pair.accessToken);

    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: pair.user.id, email: pair.user.email });
    expect(commands).toEqual(['UpdateItem', 'BatchGetItem']);
  });

  it('answers as authentication does once the session ended, and reads nothing without a token', async () => {
    const pair = await signedIn();
    await logout(accountDependencies(), pair.accessToken);

    const ended = await getProfile(pair.accessToken);
    expect(ended.status).toBe(401);
    expect(ended.body.error).toMatchObject({
      code: 'invalid_token',
      message: 'The session of this access token has ended',
    });
    commands.length = 0;
    const anonymous = await getProfile();
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('unauthorized');
    expect(commands).toEqual(['UpdateItem']);
  });
});
