import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient } from './accounts-support.js';

let service: LocalService;
let client: AccountClient;

beforeAll(async () => {
  service = await startLocalService();
  client = new AccountClient(service);
});

afterAll(async () => {
  await service?.stop();
});

/** Finds the DynamoDB Local process of a service by its port: empty once it is gone. */
function javaOf(own: LocalService): () => string {
  const dynamoPort = /DynamoDB Local at http:\/\/127\.0\.0\.1:(\d+)/.exec(own.output())?.[1];
  expect(dynamoPort).toBeDefined();
  return () => {
    try {
      return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar -port ${dynamoPort} `])
        .toString()
        .trim();
    } catch {
      return '';
    }
  };
}

describe('the local runtime (npm start)', () => {
  it('refuses a delivery concurrency that is not a whole number of at least 1, before it starts', () => {
    for (const value of ['abc', '0', '2.5']) {
      const started = spawnSync(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
        env: {
          ...process.env,
          PORT: '0',
          LOCAL_INBOX_PORT: '0',
          LOCAL_DATA_DIR: 'memory',
          LOCAL_DELIVERY_CONCURRENCY: value,
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(started.status).toBe(1);
      expect(started.stderr).toContain(
        'npm start: LOCAL_DELIVERY_CONCURRENCY must be a whole number of at least 1',
      );
    }
  }, 120_000);

  it('serves the OpenAPI document at /v1/openapi.json', async () => {
    const { data, response } = await client.api.GET('/openapi.json');
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ openapi: '3.1.0', servers: [{ url: service.baseUrl }] });
  });

  it('puts the rate-limit headers on every API response', async () => {
    const { response } = await client.api.GET('/openapi.json');
    expect(response.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('answers an unknown route with a 404 envelope', async () => {
    const answer = await client.call('GET', '/no/such/route');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      success: false,
      error: { code: 'not_found', message: expect.any(String), details: [] },
    });
  });

  it('lists the local outbox', async () => {
    const response = await fetch(`${service.origin}/_local/outbox?to=nobody@example.com`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, data: [] });
  });
});

// Each test starts a whole service of its own (up to 45 s on a loaded machine) before it stops it.
describe('stopping the local runtime', { timeout: 90_000 }, () => {
  it('leaves no DynamoDB Local process behind', async () => {
    const own = await startLocalService();
    const javaOnPort = javaOf(own);
    expect(javaOnPort()).not.toBe('');
    await own.stop();
    await expect.poll(javaOnPort, { timeout: 10_000 }).toBe('');
  });

  it('stops, DynamoDB Local included, when npm start is sent SIGTERM', async () => {
    const viaNpm = await startLocalService({}, 'npm start');
    const javaOnPort = javaOf(viaNpm);
    const serving = () =>
      fetch(`${viaNpm.baseUrl}/.well-known/jwks.json`).then(
        (response) => response.status,
        () => 'refused',
      );
    expect(await serving()).toBe(200);

    await viaNpm.stop();

    await expect.poll(serving, { timeout: 10_000 }).toBe('refused');
    await expect.poll(javaOnPort, { timeout: 10_000 }).toBe('');
  });
});
