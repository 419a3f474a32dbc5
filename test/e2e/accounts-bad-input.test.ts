import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient } from './accounts-support.js';

let service: LocalService;
let api: AccountClient;
let token: string;

beforeAll(async () => {
  service = await startLocalService();
  api = new AccountClient(service);
  token = (await api.verifiedAccount()).tokens.access_token;
});

afterAll(async () => {
  await service?.stop();
});

interface Case {
  operation: string;
  method: 'POST' | 'PUT';
  path: string;
  authenticated?: boolean;
  /** A body that passes validation, to vary one field at a time. */
  valid: Record<string, unknown>;
  /** A wrong-typed value for every field. */
  wrongTypes: Record<string, unknown>;
  /** An oversized value for one string field. */
  oversized: [field: string, value: string];
}

const long = (length: number) => 'x'.repeat(length);

const cases: Case[] = [
  {
    operation: 'signup',
    method: 'POST',
    path: '/auth/signup',
    valid: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' },
    wrongTypes: { name: 1, email: true, phone: 4155550123, password: ['x'] },
    oversized: ['name', long(101)],
  },
  {
    operation: 'verifySignupOtp',
    method: 'POST',
    path: '/auth/verify-signup-otp',
    valid: { email: 'ada@example.com', otp: '123456' },
    wrongTypes: { email: 7, otp: 123456 },
    oversized: ['email', `${long(250)}@example.com`],
  },
  {
    operation: 'login',
    method: 'POST',
    path: '/auth/login',
    valid: { email: 'ada@example.com', password: 'whatever' },
    wrongTypes: { email: null, password: 12345678 },
    oversized: ['password', long(129)],
  },
  {
    operation: 'refreshToken',
    method: 'POST',
    path: '/auth/refresh-token',
    valid: { refresh_token: 'abc' },
    wrongTypes: { refresh_token: { nested: true } },
    oversized: ['refresh_token', long(257)],
  },
  {
    operation: 'changePassword',
    method: 'POST',
    path: '/auth/change-password',
    authenticated: true,
    valid: { current_password: 'correct horse battery', new_password: 'another password' },
    wrongTypes: { current_password: 1, new_password: false },
    oversized: ['new_password', long(129)],
  },
  {
    operation: 'forgotPassword',
    method: 'POST',
    path: '/auth/forgot-password',
    valid: { email: 'ada@example.com' },
    wrongTypes: { email: ['ada@example.com'] },
    oversized: ['email', `${long(250)}@example.com`],
  },
  {
    operation: 'resetPasswordWithOtp',
    method: 'POST',
    path: '/auth/reset-password-otp',
    valid: { email: 'ada@example.com', otp: '123456', new_password: 'another password' },
    wrongTypes: { email: 1, otp: 123456, new_password: 12345678 },
    oversized: ['new_password', long(129)],
  },
  {
    operation: 'profileUpdate',
    method: 'PUT',
    path: '/profile/update',
    authenticated: true,
    valid: { name: 'Ada' },
    wrongTypes: { name: 1, email: 2, phone_number: 3, gender: 4, online_status: 'true' },
    oversized: ['name', long(101)],
  },
];

const fieldsOf = (body: { error: { details: { field: string }[] } }) =>
  body.error.details.map((detail) => detail.field).sort();

describe.each(cases)('$operation refuses bad input with a 400 naming the field', (c) => {
  const send = (options: { body?: unknown; raw?: string; headers?: Record<string, string> }) =>
    api.call(c.method, c.path, { ...options, token: c.authenticated ? token : undefined });

  it('refuses malformed JSON', async () => {
    const answer = await send({ raw: '{"email": "ada@example.com",' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'body' }],
    });
  });

  it('refuses a body that is not an object', async () => {
    const answer = await send({ raw: '["a list"]' });
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer.body)).toEqual(['body']);
  });

  it('refuses wrong types, naming every field', async () => {
    const answer = await send({ body: c.wrongTypes });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect(fieldsOf(answer.body)).toEqual(Object.keys(c.wrongTypes).sort());
  });

  it('refuses unknown fields', async () => {
    const answer = await send({ body: { ...c.valid, is_admin: true, role: 'owner' } });
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer.body)).toEqual(['is_admin', 'role']);
  });

  it('refuses an oversized value', async () => {
    const [field, value] = c.oversized;
    const answer = await send({ body: { ...c.valid, [field]: value } });
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer.body)).toEqual([field]);
  });

  it('refuses a body over 64 KiB with 413', async () => {
    const answer = await send({ body: { ...c.valid, name: long(70_000) } });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('payload_too_large');
  });

  it('refuses a wrong content type without a 5xx', async () => {
    const answer = await send({ raw: 'email=ada', headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(400);
  });
});

describe('operations without a body', () => {
  it('answers logout with a body or odd headers without a 5xx', async () => {
    // A body logout does not declare is sent past the typed client: the document is right not to
    // name it, and the service ignores it rather than failing.
    const withBody = await fetch(`${service.baseUrl}/auth/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    const answers = await Promise.all([
      api.call('POST', '/auth/logout', { headers: { authorization: 'Basic abc' } }),
      api.call('POST', '/auth/logout', { headers: { authorization: `Bearer ${long(10_000)}` } }),
    ]);
    expect([withBody.status, ...answers.map((answer) => answer.status)]).toEqual([200, 200, 200]);
    expect(((await withBody.json()) as { success: boolean }).success).toBe(true);
  });

  it('refuses a password equal to the email', async () => {
    const answer = await api.post('/auth/signup', {
      name: 'Ada',
      email: 'same@example.com',
      password: 'same@example.com',
    });
    expect(answer.status).toBe(400);
    expect(fieldsOf(answer.body)).toEqual(['password']);
  });

  it('refuses a profile update with no field', async () => {
    const answer = await api.call('PUT', '/profile/update', { token, body: {} });
    expect(answer.status).toBe(400);
  });
});
