import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secret, secretRefreshMs } from '../../shared/adapters/secrets.js';
import { advanceSystemClock } from '../../shared/domain/clock.js';

/**
 * How a deployed function reads a secret: through the Parameters and Secrets extension's HTTP
 * interface, here a server that answers as the extension does and counts what it is asked.
 */
const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:GatewayBWebhookSecret-abc123';
let value = 'whsec_first';
let failing = false;
const asked: string[] = [];
let server: Server;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    asked.push(String(request.headers['x-aws-parameters-secrets-token']));
    if (failing || url.searchParams.get('secretId') !== arn) {
      response.writeHead(failing ? 500 : 400).end();
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ARN: arn, SecretString: value }));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String(
    (server.address() as AddressInfo).port,
  );
  process.env.AWS_SESSION_TOKEN = 'the-functions-session-token';
  process.env.GATEWAY_B_WEBHOOK_SECRET_SECRET_ARN = arn;
  delete process.env.GATEWAY_B_WEBHOOK_SECRET;
});

afterAll(async () => {
  await new Promise((closed) => server.close(closed));
});

beforeEach(() => {
  // Whatever an earlier test left held has run out.
  advanceSystemClock(secretRefreshMs);
  failing = false;
  asked.length = 0;
});

describe('a secret read through the extension', () => {
  it('is held for a minute, then read again: a rotated value arrives with no deploy', async () => {
    value = 'whsec_first';
    expect(await secret('GATEWAY_B_WEBHOOK_SECRET')).toBe('whsec_first');
    value = 'whsec_rotated';
    advanceSystemClock(secretRefreshMs / 2);
    expect(await secret('GATEWAY_B_WEBHOOK_SECRET')).toBe('whsec_first');
    expect(asked).toEqual(['the-functions-session-token']);

    advanceSystemClock(secretRefreshMs / 2);
    expect(await secret('GATEWAY_B_WEBHOOK_SECRET')).toBe('whsec_rotated');
    expect(asked).toHaveLength(2);
  });

  it('keeps the value it holds when a re-read fails, and asks again on the next call', async () => {
    value = 'whsec_held';
    expect(await secret('GATEWAY_B_WEBHOOK_SECRET')).toBe('whsec_held');
    advanceSystemClock(secretRefreshMs);
    failing = true;
    expect(await secret('GATEWAY_B_WEBHOOK_SECRET')).toBe('whsec_held');
    failing = false;
    value = 'whsec_next';
    expect(await secret('GATEWAY_B_WEBHOOK_SECRET')).toBe('whsec_next');
    expect(asked).toHaveLength(3);
  });

  it('fails the call when the first read fails, and asks again on the next', async () => {
    delete process.env.OTP_PEPPER;
    process.env.OTP_PEPPER_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:x';
    await expect(secret('OTP_PEPPER')).rejects.toThrow(/OTP_PEPPER could not be read/);
    await expect(secret('OTP_PEPPER')).rejects.toThrow(/OTP_PEPPER could not be read/);
    expect(asked).toHaveLength(2);
  });
});
