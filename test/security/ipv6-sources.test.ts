import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as listSessions } from '../../functions/auth/list-sessions.js';
import { handler as login } from '../../functions/auth/login.js';
import { handler as signup } from '../../functions/auth/signup.js';
import { handler as verifySignup } from '../../functions/auth/verify-signup-otp.js';
import { handler as verifyPhoneAccount } from '../../functions/otp/verify-phone-account.js';
import { handler as sendAccountCode } from '../../functions/workers/send-account-code.js';
import { useMailer } from '../../shared/adapters/ses-mailer.js';
import { useAccountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { countingSource } from '../../shared/http/caller-address.js';
import { LocalOutbox } from '../../shared/local/local-outbox.js';
import { startOfNextMinute } from '../support/clock.js';
import { invoke, lambdaContext, restEvent } from '../support/events.js';
import { tableCounter, testOperation } from '../support/operations.js';
import { useFreshTable } from '../support/table.js';

/**
 * Who one client is on the internet (docs/api-contract.md, "Who the rate limiter
 * counts"): a subscriber holds a /64 of IPv6 at least and can send every request from a fresh
 * address in it. Each per-address limit, played with the events API Gateway sends to the
 * deployed handler modules: an attacker who rotates the last 64 bits buys nothing.
 */

/** Addresses of one subscriber's /64, and one of its neighbour's. */
const subscriber = (n: number) => `2001:db8:4:2:${n.toString(16)}:a1ff:fe23:4567`;
const neighbour = '2001:db8:4:3::1';

const outbox = new LocalOutbox(() => undefined);
const queued: SQSRecord[] = [];

beforeAll(async () => {
  await useFreshTable();
  process.env.RATE_LIMIT_PER_MINUTE = '100';
  process.env.OTP_PEPPER = 'test-pepper';
  process.env.EMAIL_FROM = 'no-reply@example.com';
  process.env.JWT_SIGNING_KEYS = 'ipv6-test-seed';
  process.env.JWT_ISSUER = 'https://issuer.test';
  process.env.JWT_AUDIENCE = 'ipv6-test';
  useMailer(outbox.mail);
  useAccountCodeQueue({
    async request(work) {
      queued.push({ messageId: randomUUID(), body: JSON.stringify(work) } as SQSRecord);
    },
  });
});

afterAll(() => {
  process.env.RATE_LIMIT_PER_MINUTE = '100000';
});

beforeEach(() => {
  startOfNextMinute();
});

/** A REST proxy event from `sourceIp`, as API Gateway sends it. */
function from(
  sourceIp: string,
  request: { method?: string; path?: string; body?: unknown; query?: Record<string, string> } = {},
  headers: Record<string, string> = {},
) {
  return restEvent({
    httpMethod: request.method ?? 'POST',
    resource: request.path ?? '/test',
    path: request.path ?? '/test',
    body: request.body === undefined ? null : JSON.stringify(request.body),
    queryStringParameters: request.query ?? null,
    headers: { 'Content-Type': 'application/json', 'User-Agent': 'ipv6-test', ...headers },
    requestContext: {
      requestId: randomUUID(),
      stage: 'v1',
      identity: { sourceIp },
    } as ReturnType<typeof restEvent>['requestContext'],
  });
}

describe('the counting source of an address', () => {
  it('is an IPv6 address’s /64, an IPv4 address itself, and a mapped IPv4 address the IPv4 one', () => {
    expect(countingSource(subscriber(1))).toBe('2001:db8:4:2::/64');
    expect(countingSource('2001:DB8:4:2::ffff')).toBe('2001:db8:4:2::/64');
    expect(countingSource(neighbour)).toBe('2001:db8:4:3::/64');
    expect(countingSource('203.0.113.9')).toBe('203.0.113.9');
    expect(countingSource('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });
});

describe('per-address limits, from addresses of one IPv6 /64', () => {
  const ping = apiHandler(testOperation(), tableCounter, async () => ({ pong: true }));
  const remainingFrom = async (sourceIp: string) =>
    (await invoke(ping, from(sourceIp))).headers['x-ratelimit-remaining'];

  it('counts every address of a /64 as one client of the per-client limiter', async () => {
    const remaining = [];
    for (const sourceIp of [subscriber(1), subscriber(2), subscriber(3), neighbour]) {
      remaining.push(await remainingFrom(sourceIp));
    }

    expect(remaining).toEqual(['99', '98', '97', '99']);
  });

  it('keeps counting IPv4 callers by their own address', async () => {
    const remaining = [];
    for (const sourceIp of ['198.51.100.30', '198.51.100.30', '198.51.100.31']) {
      remaining.push(await remainingFrom(sourceIp));
    }

    expect(remaining).toEqual(['99', '98', '99']);
  });

  it('refuses the 11th phone lookup of a minute from the /64, whichever address asks', async () => {
    const statuses = [];
    for (let lookup = 0; lookup < 12; lookup++) {
      const event = from(subscriber(lookup + 1), {
        method: 'GET',
        path: '/verify/phone',
        query: { phone: `+1415555${String(2000 + lookup)}` },
      });
      statuses.push((await invoke(verifyPhoneAccount, event)).status);
    }

    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
  });
});

describe('the login throttle and the session list, from IPv6', () => {
  const password = 'correct horse battery';
  const runWorker = () => sendAccountCode({ Records: queued.splice(0) }, lambdaContext);
  const codeFor = (email: string) => /\b(\d{6})\b/.exec(outbox.list(email)[0]?.text ?? '')?.[1];

  async function verifiedAccount(): Promise<string> {
    const email = `ipv6-${randomUUID().slice(0, 8)}@example.com`;
    const body = { name: 'Ada', email, password };
    expect((await invoke(signup, from('192.0.2.1', { body }))).status).toBe(201);
    await runWorker();
    const verified = await invoke(
      verifySignup,
      from('192.0.2.1', { body: { email, otp: codeFor(email) } }),
    );
    expect(verified.status).toBe(200);
    return email;
  }

  it('locks the /64 after five wrong passwords, however many addresses they came from', async () => {
    const email = await verifiedAccount();
    const statuses = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      const body = { email, password: `wrong guess ${attempt}` };
      statuses.push((await invoke(login, from(subscriber(attempt), { body }))).status);
    }

    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // Another subscriber, and the owner elsewhere, are not locked by it.
    const owner = await invoke(login, from(neighbour, { body: { email, password } }));
    expect(owner.status).toBe(200);
  });

  it('shows the full address a session signed in from', async () => {
    const email = await verifiedAccount();
    const signedIn = await invoke(login, from(subscriber(7), { body: { email, password } }));

    const listed = await invoke(
      listSessions,
      from(
        subscriber(8),
        { method: 'GET', path: '/auth/sessions' },
        { Authorization: `Bearer ${signedIn.body.data.access_token}` },
      ),
    );

    expect(listed.status).toBe(200);
    expect(listed.body.data.map((session: { ip_address: string }) => session.ip_address)).toContain(
      subscriber(7),
    );
  });
});
