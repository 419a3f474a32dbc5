import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../support/local-service.js';
import { startLocalService } from '../support/local-service.js';
import { AccountClient, uniqueEmail, uniquePhone } from './accounts-support.js';

/**
 * The HTTP conventions of docs/conventions.md as a client developer meets them through
 * `npm start`: media types, the headers every answer carries, CORS, readable validation messages.
 */

const allowedOrigin = 'https://app.example.com';
let service: LocalService;
let client: AccountClient;

beforeAll(async () => {
  service = await startLocalService({
    CORS_ALLOWED_ORIGINS: `${allowedOrigin},http://localhost:5173`,
  });
  client = new AccountClient(service);
});

afterAll(async () => {
  await service?.stop();
});

const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

/** What the test reads of a receiver's operation in the served document. */
interface ReceiverDocument {
  tags: string[];
  description?: string;
  responses: Record<string, { description: string; headers?: Record<string, unknown> }>;
}

const headersOf = (headers: Headers, names: string[]) =>
  Object.fromEntries(names.map((name) => [name, headers.get(name)]));

describe('HTTP details through the local runtime', () => {
  it.each([
    'APPLICATION/JSON',
    'Application/Json; Charset=UTF-8',
    'application/json;charset=utf-8',
    'application/json ; charset=utf-8',
  ])('accepts the media type %s (media types are case-insensitive)', async (contentType) => {
    const answer = await client.call('POST', '/auth/signup', {
      body: { name: 'Ada', email: uniqueEmail(), password: 'correct horse battery' },
      headers: { 'content-type': contentType },
    });
    expect(answer.status).toBe(201);
  });

  it('refuses another media type with a 400 that says what to send', async () => {
    const answer = await client.call('POST', '/auth/login', {
      raw: '{"email":"a@example.com","password":"x"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({
      code: 'invalid_request',
      message: 'body must be sent as application/json',
      details: [{ field: 'body', message: 'body must be sent as application/json' }],
    });
  });

  it('says which JSON is malformed in a sentence', async () => {
    const answer = await client.call('POST', '/auth/login', { raw: '{"email":' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([
      { field: 'body', message: 'body must be valid JSON' },
    ]);
  });

  it('answers an unknown path with the 404 envelope and the headers of every answer', async () => {
    const answer = await client.call('GET', '/no/such/route');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      success: false,
      error: { code: 'not_found', message: expect.any(String), details: [] },
    });
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(Number(answer.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    expect(Number(answer.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(answer.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
    expect(headersOf(answer.headers, Object.keys(securityHeaders))).toEqual(securityHeaders);
  });

  it('gives every answer its own request id', async () => {
    const [first, second] = await Promise.all([
      client.call('GET', '/verify/phone?phone=%2B14155550123'),
      client.call('GET', '/verify/phone?phone=%2B14155550123'),
    ]);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });

  it('marks token-bearing and other auth answers Cache-Control: no-store', async () => {
    const { email, password } = await client.verifiedAccount();
    const login = await client.post('/auth/login', { email, password });
    expect(login.status).toBe(200);
    expect(login.headers.get('cache-control')).toBe('no-store');
    const refresh = await client.post('/auth/refresh-token', {
      refresh_token: login.body.data.refresh_token,
    });
    expect(refresh.headers.get('cache-control')).toBe('no-store');
    const refused = await client.post('/auth/login', { email, password: 'wrong password' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(headersOf(refused.headers, Object.keys(securityHeaders))).toEqual(securityHeaders);
  });

  it('lets public documents be cached', async () => {
    const jwks = await client.api.GET('/.well-known/jwks.json');
    expect(jwks.response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(jwks.data?.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
  });

  describe('CORS', () => {
    const preflight = (origin: string, method: string, path = '/auth/login') =>
      fetch(`${service.baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization, content-type',
        },
      });

    it('answers a preflight from an allowed origin', async () => {
      const answer = await preflight(allowedOrigin, 'POST');
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
      expect(answer.headers.get('access-control-allow-methods')).toBe('POST');
      expect(answer.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
        'authorization',
      );
      expect(answer.headers.get('vary')).toContain('Origin');
    });

    it('names every method of the path in a preflight', async () => {
      const answer = await preflight(allowedOrigin, 'DELETE', '/webhooks/whk_1');
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-methods')).toBe('GET, PATCH, DELETE');
    });

    it('refuses a preflight from another origin, and for a method the path does not have', async () => {
      const stranger = await preflight('https://evil.example', 'POST');
      expect(stranger.status).toBe(403);
      expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
      const wrongMethod = await preflight(allowedOrigin, 'DELETE');
      expect(wrongMethod.status).toBe(403);
      expect(wrongMethod.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('answers refused preflights and receivers without rate-limit headers, and the served document says why', async () => {
      const document = (await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as {
        info: { description: string };
        paths: Record<string, Record<string, ReceiverDocument>>;
      };
      const refused = await preflight('https://evil.example', 'POST');
      const unsigned = await client.call('POST', '/gateway-b-webhook', { raw: '{}' });

      for (const answer of [refused, unsigned]) {
        expect(answer.headers.get('x-request-id')).toBeTruthy();
        expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
        expect(answer.headers.get('x-ratelimit-remaining')).toBeNull();
      }
      expect(document.info.description).toMatch(
        /CORS preflights \(OPTIONS on an API path\), which the API gateway answers itself .* a preflight is never counted/,
      );
      const receivers = Object.values(document.paths)
        .flatMap((methods) => Object.values(methods))
        .filter((operation) => operation.tags.includes('receivers'));
      expect(receivers).toHaveLength(6);
      for (const receiver of receivers) {
        expect(receiver.description).toMatch(/carry no X-RateLimit-\* headers/);
        expect(receiver.responses['429']?.description).toMatch(/reserved concurrency/);
        expect(Object.keys(receiver.responses['200']?.headers ?? {})).toEqual(['X-Request-Id']);
      }
    });

    it('lets an allowed origin read the answer and its rate-limit headers', async () => {
      const answer = await client.call('GET', '/verify/phone?phone=%2B14155550123', {
        headers: { origin: allowedOrigin },
      });
      expect(answer.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
      expect(answer.headers.get('access-control-expose-headers')?.toLowerCase()).toContain(
        'x-ratelimit-remaining',
      );
      const stranger = await client.call('GET', '/verify/phone?phone=%2B14155550123', {
        headers: { origin: 'https://evil.example' },
      });
      expect(stranger.status).toBe(200);
      expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('validation messages', () => {
    it('names the field in a sentence a person can act on', async () => {
      const answer = await client.post('/auth/signup', {
        email: 'not-an-email',
        password: 'short',
        nickname: 'x',
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.details).toEqual([
        { field: 'name', message: 'name is required' },
        { field: 'email', message: 'email must be a valid email address' },
        { field: 'password', message: 'password must be at least 8 characters' },
        { field: 'nickname', message: 'nickname is not a known field' },
      ]);
      expect(answer.body.error.message).toBe(
        'The request body is invalid: name is required; email must be a valid email address; password must be at least 8 characters; nickname is not a known field',
      );
    });

    it('never answers in the validator’s own wording', async () => {
      const answers = await Promise.all([
        client.post('/auth/login', {}),
        client.post('/auth/login', { email: 42, password: null }),
        client.post('/auth/verify-signup-otp', { email: uniqueEmail(), otp: 123456 }),
        client.post('/otp/resend/mobile', { mobile_number: uniquePhone().slice(0, 4) }),
        client.call('GET', '/webhooks/x/deliveries?per_page=500', { token: 'x' }),
      ]);
      for (const answer of answers) {
        expect(answer.status).toBeGreaterThanOrEqual(400);
        const text = JSON.stringify(answer.body.error);
        expect(text).not.toMatch(/Invalid (key|type|length)|Expected|received/);
      }
    });
  });

  it('lists the outbox of a target written with an unencoded +', async () => {
    // Plus addressing: `+` in a query string would otherwise be read as a space.
    const email = `ada+${uniqueEmail()}`;
    const signup = await client.post('/auth/signup', {
      name: 'Ada',
      email,
      password: 'correct horse battery',
    });
    expect(signup.status).toBe(201);
    const response = await fetch(`${service.origin}/_local/outbox?to=${email}`);
    expect(response.status).toBe(200);
    const listed = (await response.json()) as { data: { to: string; subject: string }[] };
    expect(listed.data).toEqual([expect.objectContaining({ to: email })]);
  });
});
