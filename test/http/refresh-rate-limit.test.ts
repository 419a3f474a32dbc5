import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as refreshToken } from '../../functions/auth/refresh-token.js';
import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { aroundDynamoCalls } from '../../shared/adapters/dynamodb.js';
import type { SignedIn } from '../../shared/domain/accounts/sessions.js';
import { signup } from '../../shared/domain/accounts/signup.js';
import { verifySignup } from '../../shared/domain/accounts/signup-activation.js';
import { advanceSystemClock, systemClock } from '../../shared/domain/clock.js';
import { consume } from '../../shared/domain/rate-limit.js';
import {
  inlineSignupQueue,
  MemoryCodes,
  testClient,
  uniqueEmail,
} from '../domain/accounts/support.js';
import { startOfNextMinute } from '../support/clock.js';
import { invoke, restEvent } from '../support/events.js';
import { useFreshTable } from '../support/table.js';

/**
 * The refresh counts its client's rate-limit hit in its own rotation: two DynamoDB round trips in
 * all. These tests hold it to what the separate counter guaranteed: every request counted once,
 * whichever way it ends, the headers exact, a request over the limit refused with nothing
 * rotated — and the rotation rules unchanged under races.
 */

const limit = 1000;
let calls: string[] = [];
/** Run once, right after the next TransactGetItems: another request's doings in between. */
let afterNextRead: (() => Promise<void>) | undefined;

beforeAll(async () => {
  await useFreshTable();
  process.env.JWT_SIGNING_KEYS = 'refresh-rate-limit-seed';
  process.env.JWT_ISSUER = 'https://issuer.test';
  process.env.JWT_AUDIENCE = 'test-audience';
  aroundDynamoCalls(async ({ operation }, next) => {
    calls.push(operation);
    const result = await next();
    if (operation === 'TransactGetItems' && afterNextRead !== undefined) {
      const interloper = afterNextRead;
      afterNextRead = undefined;
      await interloper();
    }
    return result;
  });
});

beforeEach(() => {
  process.env.RATE_LIMIT_PER_MINUTE = String(limit);
  // Each test fills a window of its own, from its start.
  startOfNextMinute();
  calls = [];
});

async function signedIn(): Promise<SignedIn> {
  const deps = accountDependencies();
  const codes = new MemoryCodes();
  const email = uniqueEmail();
  const queue = inlineSignupQueue(deps, codes, []);
  await signup(
    { ...deps, codeQueue: queue },
    { name: 'Ada', email, password: 'correct horse battery' },
  );
  const pair = await verifySignup(
    { ...deps, codes: codes, codeQueue: queue },
    { email, otp: codes.lastCode(email, 'signup') },
    testClient,
  );
  calls = [];
  return pair;
}

const addressFor = () => `192.0.2.${Math.floor(Math.random() * 250) + 1}`;

function refresh(refreshTokenOrBody: string | { body: string }, sourceIp: string) {
  const event = restEvent({
    body:
      typeof refreshTokenOrBody === 'string'
        ? JSON.stringify({ refresh_token: refreshTokenOrBody })
        : refreshTokenOrBody.body,
  });
  event.requestContext.identity.sourceIp = sourceIp;
  return invoke(refreshToken, event);
}

const remaining = (answer: { headers: Record<string, unknown> }) =>
  Number(answer.headers['x-ratelimit-remaining']);

describe('a refresh and its client’s rate limit', () => {
  it('rotates in two DynamoDB round trips, its own rate-limit hit included', async () => {
    const pair = await signedIn();
    const ip = addressFor();

    const first = await refresh(pair.refreshToken, ip);

    expect(first.status).toBe(200);
    expect(calls).toEqual(['TransactGetItems', 'TransactWriteItems']);
    expect(remaining(first)).toBe(limit - 1);
    expect(first.headers['x-ratelimit-limit']).toBe(String(limit));
    const next = await refresh(first.body.data.refresh_token, ip);
    expect(next.status).toBe(200);
    expect(remaining(next)).toBe(limit - 2);
  });

  it('counts every request exactly once, whichever way it ends', async () => {
    const pair = await signedIn();
    const ip = addressFor();
    const rotated = await refresh(pair.refreshToken, ip);
    // Within the 10 s grace, the same token gets the same pair: its write rotates nothing,
    // checks the session and counts the hit.
    calls = [];
    const again = await refresh(pair.refreshToken, ip);
    expect(again.body.data.refresh_token).toBe(rotated.body.data.refresh_token);
    expect(again.body.data.access_token).toBe(rotated.body.data.access_token);
    expect(calls).toEqual(['TransactGetItems', 'TransactWriteItems']);
    // Unknown, malformed and invalid requests are counted too.
    const unknown = await refresh('B'.repeat(43), ip);
    const malformed = await refresh('made-up-token', ip);
    const invalid = await refresh({ body: '{"refresh_token": 7}' }, ip);
    const unparsable = await refresh({ body: '{' }, ip);

    expect([unknown.status, malformed.status, invalid.status, unparsable.status]).toEqual([
      401, 401, 400, 400,
    ]);
    expect([rotated, again, unknown, malformed, invalid, unparsable].map(remaining)).toEqual([
      limit - 1,
      limit - 2,
      limit - 3,
      limit - 4,
      limit - 5,
      limit - 6,
    ]);
  });

  it('refuses a refresh over the limit with 429 and rotates nothing', async () => {
    process.env.RATE_LIMIT_PER_MINUTE = '2';
    const pair = await signedIn();
    const ip = addressFor();
    await refresh('made-up-token', ip);
    await refresh('made-up-token', ip);

    const refused = await refresh(pair.refreshToken, ip);

    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(remaining(refused)).toBe(0);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(calls).not.toContain('TransactWriteItems');
    // The token was not used: in the next window it rotates, and is not taken for a replay.
    advanceSystemClock(60_000);
    const later = await refresh(pair.refreshToken, ip);
    expect(later.status).toBe(200);
    expect((await refresh(later.body.data.refresh_token, ip)).status).toBe(200);
  });

  it('gives concurrent refreshes of one token from one client the same successor, each counted', async () => {
    const pair = await signedIn();
    const ip = addressFor();

    const answers = await Promise.all(
      Array.from({ length: 5 }, () => refresh(pair.refreshToken, ip)),
    );

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.data.refresh_token)).size).toBe(1);
    expect(answers.map(remaining).sort((a, b) => b - a)).toEqual([
      limit - 1,
      limit - 2,
      limit - 3,
      limit - 4,
      limit - 5,
    ]);
    const after = await refresh(answers[0]!.body.data.refresh_token, ip);
    expect(remaining(after)).toBe(limit - 6);
  });

  it('still rotates, counted once, when another request of the client is counted between its read and its write', async () => {
    const pair = await signedIn();
    const ip = addressFor();
    afterNextRead = async () => {
      await consume(
        dynamoWindowCounter,
        { scope: 'api', limit, windowSeconds: 60 },
        `ip:${ip}`,
        systemClock.now(),
      );
    };

    const answer = await refresh(pair.refreshToken, ip);

    expect(answer.status).toBe(200);
    expect(remaining(answer)).toBe(limit - 2);
    expect(calls).toEqual([
      'TransactGetItems',
      'UpdateItem', // the other request's hit
      'TransactWriteItems', // cancelled: the counter moved
      'UpdateItem', // this hit, alone
      'TransactGetItems',
      'TransactWriteItems',
    ]);
    expect((await refresh(answer.body.data.refresh_token, ip)).status).toBe(200);
  });

  it('revokes the session when a rotated token comes back after the grace, counting that too', async () => {
    const pair = await signedIn();
    const ip = addressFor();
    const rotated = await refresh(pair.refreshToken, ip);
    advanceSystemClock(11_000);

    const replay = await refresh(pair.refreshToken, ip);

    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toMatch(/already used; the session has been revoked/);
    expect(remaining(replay)).toBe(limit - 2);
    const descendant = await refresh(rotated.body.data.refresh_token, ip);
    expect(descendant.status).toBe(401);
    expect(descendant.body.error.message).toMatch(/session of this refresh token has ended/);
  });

  it('answers the account as it is when it changed since the token was issued, in one round trip more', async () => {
    const pair = await signedIn();
    const ip = addressFor();
    await accountDependencies().users.update(pair.user.id, { name: 'Ada King' });
    calls = [];

    const answer = await refresh(pair.refreshToken, ip);

    expect(answer.status).toBe(200);
    expect(answer.body.data.user.name).toBe('Ada King');
    expect(remaining(answer)).toBe(limit - 1);
    expect(calls).toEqual([
      'TransactGetItems',
      'TransactWriteItems', // cancelled: the account no longer reads as the token's copy
      'TransactWriteItems',
    ]);
    // The successor holds the account as it is: back to two round trips.
    calls = [];
    const next = await refresh(answer.body.data.refresh_token, ip);
    expect(next.body.data.user.name).toBe('Ada King');
    expect(calls).toEqual(['TransactGetItems', 'TransactWriteItems']);
  });

  it('refuses an expired token, counted', async () => {
    const pair = await signedIn();
    const ip = addressFor();
    advanceSystemClock(30 * 24 * 3600 * 1000 + 1000);

    const expired = await refresh(pair.refreshToken, ip);

    expect(expired.status).toBe(401);
    expect(remaining(expired)).toBe(limit - 1);
    expect(calls).toEqual(['TransactGetItems', 'UpdateItem']);
  });
});
