import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/domain/clock.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { startOfNextMinute } from '../support/clock.js';
import { invoke, lambdaContext, restEvent } from '../support/events.js';
import { tableCounter, testOperation } from '../support/operations.js';
import { useFreshTable } from '../support/table.js';

const Body = v.strictObject({ target: v.string() });

/** A route with its own limit of 2 a minute per target, like the OTP routes. */
const limited = apiHandler(
  testOperation({
    body: Body,
    limits: [
      {
        scope: 'test-target',
        limit: 2,
        windowSeconds: 60,
        per: 'target',
        key: ({ body }) => body.target,
      },
    ],
  }),
  tableCounter,
  async ({ body }) => ({ ok: body.target }),
);

async function call(target: string, sourceIp = '10.1.1.1') {
  const event = restEvent({ body: JSON.stringify({ target }) });
  event.requestContext.identity.sourceIp = sourceIp;
  return invoke(limited, event);
}

beforeAll(async () => {
  await useFreshTable();
  process.env.RATE_LIMIT_PER_MINUTE = '1000';
});

describe('a route limit', () => {
  it('refuses the third request for one target in a minute with its own headers', async () => {
    const target = `t-${Math.random()}`;
    startOfNextMinute();
    await call(target, '10.1.1.1');
    await call(target, '10.1.1.2');

    const third = await call(target, '10.1.1.3');

    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('rate_limited');
    expect(third.headers['x-ratelimit-limit']).toBe('2');
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(third.headers['x-ratelimit-reset'])).toBeGreaterThan(systemClock.now() / 1000);
  });

  it('counts each target on its own and reports the per-client limit on success', async () => {
    const first = await call(`a-${Math.random()}`);
    const other = await call(`b-${Math.random()}`);

    expect(first.status).toBe(200);
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-limit']).toBe('1000');
  });

  it('validates before counting: a bad body is a 400 and costs the target nothing', async () => {
    const response = await limited(restEvent({ body: '{"target":7}' }), lambdaContext);

    expect(response.statusCode).toBe(400);
  });
});
