import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createApiClient,
  dataOf,
  successOf,
} from '../../shared/http/client/api-client.js';

/** How the typed client reads what comes back, whatever comes back (a fetch of our own). */

const answering = (answer: () => Response) =>
  createApiClient('https://api.example.com/v1', { fetch: async () => answer() });

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

const refusal = async (sent: Promise<unknown>) => {
  const error = await sent.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
};

describe('the typed client', () => {
  it('answers the data of a success envelope, and the whole envelope of a page', async () => {
    const api = answering(() =>
      json(200, {
        success: true,
        data: [{ type: 'order.created' }],
        meta: { page: 1, per_page: 20, total: 1 },
      }),
    );
    expect(await dataOf(api.GET('/event-types'))).toEqual([{ type: 'order.created' }]);
    expect((await successOf(api.GET('/event-types'))).meta.total).toBe(1);
  });

  it('throws the error envelope as an ApiError, with the wait of a 429', async () => {
    const details = [{ field: 'email', message: 'email must be a valid email address' }];
    const invalid = answering(() =>
      json(400, {
        success: false,
        error: { code: 'invalid_request', message: 'The request body is invalid', details },
      }),
    );
    const error = await refusal(
      successOf(invalid.POST('/auth/forgot-password', { body: { email: 'x' } })),
    );
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', details });
    expect(error.detailOf('email')).toBe('email must be a valid email address');

    const limited = answering(() =>
      json(
        429,
        { success: false, error: { code: 'rate_limited', message: 'Slow down', details: [] } },
        { 'retry-after': '7' },
      ),
    );
    const wait = await refusal(successOf(limited.GET('/event-types')));
    expect(wait).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 7 });
  });

  it('says the service could not be reached when no answer came', async () => {
    const api = createApiClient('https://api.example.com/v1', {
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    });
    expect(await refusal(successOf(api.GET('/event-types')))).toMatchObject({
      status: 0,
      code: 'network',
    });
  });

  it('refuses an answer that is no envelope, such as a proxy’s error page', async () => {
    const api = answering(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    expect(await refusal(successOf(api.GET('/event-types')))).toMatchObject({
      status: 502,
      code: 'unexpected',
      message: 'The service answered 502.',
    });
  });

  it('lets a middleware’s own error through unchanged', async () => {
    const api = answering(() => json(200, { success: true, data: [], meta: {} }));
    api.use({
      onResponse: () => {
        throw new Error('contract: not what the document says');
      },
    });
    await expect(successOf(api.GET('/event-types'))).rejects.toThrow(/^contract:/);
  });
});
