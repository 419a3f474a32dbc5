import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as forgotPassword } from '../../functions/auth/forgot-password.js';
import { handler as login } from '../../functions/auth/login.js';
import { handler as resetPassword } from '../../functions/auth/reset-password-otp.js';
import { handler as signup } from '../../functions/auth/signup.js';
import { handler as verifySignup } from '../../functions/auth/verify-signup-otp.js';
import { handler as sendAccountCode } from '../../functions/workers/send-account-code.js';
import { aroundDynamoCalls } from '../../shared/adapters/dynamodb.js';
import { useMailer } from '../../shared/adapters/ses-mailer.js';
import { useAccountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { LocalOutbox } from '../../shared/local/local-outbox.js';
import { invoke, lambdaContext, restEvent } from '../support/events.js';
import { useFreshTable } from '../support/table.js';

/**
 * Failed-login throttling must tell nothing and lock nobody out (docs/accounts.md,
 * "Login"). Played against the deployed handler modules on DynamoDB Local, with the events
 * API Gateway sends (the source IP is the one API Gateway saw), every DynamoDB call recorded.
 * Time stands still (only `Date` is faked), so a lock's Retry-After is exact on both sides.
 */

const outbox = new LocalOutbox(() => undefined);
const queued: SQSRecord[] = [];
let dynamoCalls: string[] = [];

const kindOf = (pk: unknown) => (typeof pk === 'string' ? pk.slice(0, pk.indexOf('#') + 1) : '');

/** `GetItem USER#`, `TransactWriteItems [Put SESSION…]`: a call without the values it carries. */
function describeCall(command: string, input: Record<string, unknown>): string {
  const key = (input.Key ?? input.Item) as { pk?: unknown } | undefined;
  const items = Array.isArray(input.TransactItems)
    ? ` [${input.TransactItems.map(
        (entry: Record<string, { Key?: { pk: unknown }; Item?: { pk: unknown } }>) =>
          Object.entries(entry)
            .map(([operation, body]) => `${operation} ${kindOf((body.Key ?? body.Item)?.pk)}`)
            .join(),
      ).join(', ')}]`
    : '';
  return `${command} ${kindOf(key?.pk)}${items}`.trim();
}

beforeAll(async () => {
  await useFreshTable();
  process.env.RATE_LIMIT_PER_MINUTE = '100000';
  process.env.OTP_PEPPER = 'test-pepper';
  process.env.EMAIL_FROM = 'no-reply@example.com';
  process.env.JWT_SIGNING_KEYS = 'throttle-test-seed';
  process.env.JWT_ISSUER = 'https://issuer.test';
  process.env.JWT_AUDIENCE = 'throttle-test';
  aroundDynamoCalls(async ({ operation, input }, next) => {
    dynamoCalls.push(describeCall(operation, input as Record<string, unknown>));
    return next();
  });
  useMailer(outbox.mail);
  useAccountCodeQueue({
    async request(work) {
      queued.push({ messageId: randomUUID(), body: JSON.stringify(work) } as SQSRecord);
    },
  });
  vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 25, 12, 0, 0) });
});

afterAll(() => {
  vi.useRealTimers();
});

const runWorker = () => sendAccountCode({ Records: queued.splice(0) }, lambdaContext);

const codeFor = (email: string) => {
  const code = /\b(\d{6})\b/.exec(outbox.list(email)[0]?.text ?? '')?.[1];
  if (code === undefined) throw new Error(`no code for ${email}`);
  return code;
};

function post(handler: typeof login, body: unknown, sourceIp: string) {
  return invoke(
    handler,
    restEvent({
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'throttle-test' },
      requestContext: {
        requestId: randomUUID(),
        stage: 'v1',
        identity: { sourceIp },
      } as ReturnType<typeof restEvent>['requestContext'],
    }),
  );
}

let n = 0;
const uniqueEmail = () => `throttle-${n++}-${randomUUID().slice(0, 8)}@example.com`;
const password = 'correct horse battery';

async function verifiedAccount(): Promise<string> {
  const email = uniqueEmail();
  expect((await post(signup, { name: 'Ada', email, password }, '192.0.2.1')).status).toBe(201);
  await runWorker();
  const verified = await post(verifySignup, { email, otp: codeFor(email) }, '192.0.2.1');
  expect(verified.status).toBe(200);
  await runWorker();
  return email;
}

/** What a caller sees of a login answer: all of it but the request id. */
const seen = (answer: Awaited<ReturnType<typeof post>>) => {
  const { 'x-request-id': _requestId, ...headers } = answer.headers;
  return { status: answer.status, body: answer.body, headers };
};

describe('failed logins', () => {
  it('answers a known and an unknown email alike, locks included, with the same DynamoDB calls', async () => {
    const known = await verifiedAccount();
    const unknown = uniqueEmail();

    for (let attempt = 1; attempt <= 8; attempt++) {
      dynamoCalls = [];
      const forKnown = await post(login, { email: known, password: 'wrong guess' }, '198.51.100.7');
      const knownCalls = dynamoCalls;
      dynamoCalls = [];
      const forUnknown = await post(
        login,
        { email: unknown, password: 'wrong guess' },
        '198.51.100.8',
      );

      expect({ attempt, ...seen(forUnknown) }).toEqual({ attempt, ...seen(forKnown) });
      expect({ attempt, calls: dynamoCalls }).toEqual({ attempt, calls: knownCalls });
    }
    const locked = await post(login, { email: known, password: 'wrong guess' }, '198.51.100.7');
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toMatch(/^\d+$/);
  });

  it("lets the owner sign in from elsewhere while a stranger's guesses are throttled", async () => {
    const email = await verifiedAccount();
    for (let guess = 0; guess < 10; guess++) {
      await post(login, { email, password: `guess ${guess}` }, '203.0.113.66');
    }
    expect((await post(login, { email, password }, '203.0.113.66')).status).toBe(429);

    const owner = await post(login, { email, password }, '192.0.2.44');

    expect(owner.status).toBe(200);
  });

  it('never stops recovery: a locked account resets its password and signs in at once', async () => {
    const email = await verifiedAccount();
    const ip = '203.0.113.77';
    for (let guess = 0; guess < 6; guess++) {
      await post(login, { email, password: `guess ${guess}` }, ip);
    }
    expect((await post(login, { email, password }, ip)).status).toBe(429);

    expect((await post(forgotPassword, { email }, ip)).status).toBe(200);
    await runWorker();
    const reset = await post(
      resetPassword,
      { email, otp: codeFor(email), new_password: 'a fresh password' },
      ip,
    );

    expect(reset.status).toBe(200);
    expect((await post(login, { email, password: 'a fresh password' }, ip)).status).toBe(200);
  });

  it('lets the owner reset again 15 minutes after a stranger burnt the reset code', async () => {
    const email = await verifiedAccount();
    await post(forgotPassword, { email }, '192.0.2.9');
    await runWorker();
    for (let guess = 0; guess < 5; guess++) {
      const otp = String(100_000 + guess);
      await post(resetPassword, { email, otp, new_password: 'stranger password' }, '203.0.113.5');
    }

    vi.setSystemTime(Date.now() + 15 * 60 * 1000);
    await post(forgotPassword, { email }, '192.0.2.9');
    await runWorker();
    const reset = await post(
      resetPassword,
      { email, otp: codeFor(email), new_password: 'owner new password' },
      '192.0.2.9',
    );

    expect(reset.status).toBe(200);
    expect((await post(login, { email, password: 'owner new password' }, '192.0.2.9')).status).toBe(
      200,
    );
  });
});
