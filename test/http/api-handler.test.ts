import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { operation as sendOtp } from '../../functions/otp/send-otp.operation.js';
import { Refusal, ServiceError } from '../../shared/domain/errors.js';
import { apiHandler, Page } from '../../shared/http/api-handler.js';
import type { InputFields } from '../../shared/http/responses.js';
import { startOfNextMinute } from '../support/clock.js';
import { invoke, lambdaContext, restEvent } from '../support/events.js';
import { tableCounter, testOperation } from '../support/operations.js';
import { useFreshTable } from '../support/table.js';

const Body = v.strictObject({
  name: v.pipe(v.string('must be a string'), v.maxLength(10, 'must be at most 10 characters')),
  age: v.optional(v.number('must be a number')),
});

const echo = apiHandler(
  testOperation({ body: Body, successStatus: 201 }),
  tableCounter,
  async ({ body }) => ({ hello: body.name }),
);

async function call(
  body: string | null,
  headers: Record<string, string> = { 'Content-Type': 'application/json' },
) {
  return invoke(echo, restEvent({ body, headers }));
}

beforeAll(async () => {
  await useFreshTable();
  process.env.RATE_LIMIT_PER_MINUTE = '1000';
});

describe('the API middleware stack', () => {
  it('answers a valid request in the success envelope with the configured status', async () => {
    const response = await call('{"name":"Ada"}');
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ success: true, data: { hello: 'Ada' } });
  });

  it('refuses malformed JSON with 400 invalid_request', async () => {
    const response = await call('{"name":');
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.details).toEqual([expect.objectContaining({ field: 'body' })]);
  });

  it('refuses a wrong content type and a missing body with 400, not 415 or 500', async () => {
    expect((await call('{"name":"Ada"}', { 'Content-Type': 'text/plain' })).status).toBe(400);
    expect((await call(null)).status).toBe(400);
  });

  it('names every bad field once: wrong types, too long, unknown fields', async () => {
    const response = await call(
      '{"name":"far too long a name","age":"old","admin":true,"role":"x"}',
    );
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([
      { field: 'name', message: 'name must be at most 10 characters' },
      { field: 'age', message: 'age must be a number' },
      { field: 'admin', message: 'admin is not a known field' },
      { field: 'role', message: 'role is not a known field' },
    ]);
  });

  it('refuses a JSON body that is not an object', async () => {
    const response = await call('[1,2]');
    expect(response.status).toBe(400);
    expect(response.body.error.details[0].field).toBe('body');
  });

  it('refuses a body over 64 KiB with 413 payload_too_large', async () => {
    const response = await call(JSON.stringify({ name: 'x'.repeat(70 * 1024) }));
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });

  it('answers an unexpected failure with a generic 500 that leaks nothing', async () => {
    const failing = apiHandler(testOperation(), tableCounter, async () => {
      throw new Error('ConditionalCheckFailedException: secret internals');
    });
    const response = await failing(restEvent(), lambdaContext);
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('internals');
    expect(JSON.parse(response.body).error.code).toBe('internal_error');
  });

  it('maps a service error to its status, its details read as sentences naming the field', async () => {
    const conflicting = apiHandler(testOperation(), tableCounter, async () => {
      throw new ServiceError('conflict', 'Email is taken', [
        { field: 'email', message: 'is taken' },
      ]);
    });
    const response = await conflicting(restEvent(), lambdaContext);
    expect(response.statusCode).toBe(409);
    expect(JSON.parse(response.body).error.details).toEqual([
      { field: 'email', message: 'email is taken' },
    ]);
  });

  it('answers an adapter’s refusal naming the field this route gives the refused input', async () => {
    const refusing = (inputFields?: InputFields) =>
      apiHandler(testOperation({ inputFields }), tableCounter, async () => {
        throw new Refusal('smsUndeliverable', { cause: new Error('opted out') });
      });
    const answerOf = async (inputFields?: InputFields) =>
      JSON.parse((await refusing(inputFields)(restEvent(), lambdaContext)).body).error;

    // sendOtp's definition names its number phone_number: the answer it has always given.
    expect(await answerOf(sendOtp.inputFields)).toEqual({
      code: 'invalid_request',
      message: 'This phone number cannot receive text messages',
      details: [{ field: 'phone_number', message: 'phone_number cannot receive text messages' }],
    });
    // A route that calls its number mobile_number is told about mobile_number.
    expect((await answerOf({ phone: 'mobile_number' })).details).toEqual([
      { field: 'mobile_number', message: 'mobile_number cannot receive text messages' },
    ]);
  });

  it('adds meta to a page of results', async () => {
    const list = apiHandler(
      testOperation(),
      tableCounter,
      async () => new Page([{ id: 1 }], { page: 1, per_page: 20, total: 1, next_cursor: null }),
    );
    const response = await list(restEvent({ httpMethod: 'GET' }), lambdaContext);
    expect(JSON.parse(response.body)).toEqual({
      success: true,
      data: [{ id: 1 }],
      meta: { page: 1, per_page: 20, total: 1, next_cursor: null },
    });
  });

  it('checks credentials before reading the body', async () => {
    const guarded = apiHandler(
      testOperation({ body: Body, auth: 'user' }),
      {
        ...tableCounter,
        authenticate: async () => {
          throw new ServiceError('unauthorized', 'A Bearer access token is required');
        },
      },
      async () => ({}),
    );
    const response = await guarded(restEvent({ body: '{bad json' }), lambdaContext);
    expect(response.statusCode).toBe(401);
  });
});

describe('the per-client rate limit', () => {
  it('counts per client, reports the window on every response and answers 429 with Retry-After', async () => {
    process.env.RATE_LIMIT_PER_MINUTE = '3';
    const ping = apiHandler(testOperation(), tableCounter, async () => ({ pong: true }));
    const fromClient = (sourceIp: string) => {
      const event = restEvent({ httpMethod: 'GET' });
      event.requestContext.identity.sourceIp = sourceIp;
      return event;
    };
    const event = () => fromClient('192.0.2.30');
    const responses = [];
    startOfNextMinute();
    for (let i = 0; i < 4; i++) responses.push(await ping(event(), lambdaContext));
    process.env.RATE_LIMIT_PER_MINUTE = '1000';

    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 429]);
    expect(responses.map((response) => response.headers?.['x-ratelimit-remaining'])).toEqual([
      '2',
      '1',
      '0',
      '0',
    ]);
    const limited = responses[3]!;
    expect(limited.headers?.['x-ratelimit-limit']).toBe('3');
    const reset = Number(limited.headers?.['x-ratelimit-reset']);
    expect(reset % 60).toBe(0);
    expect(Number(limited.headers?.['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(limited.body).error.code).toBe('rate_limited');

    // Another client has its own window.
    const other = await ping(fromClient('192.0.2.31'), lambdaContext);
    expect(other.statusCode).toBe(200);
  });
});
