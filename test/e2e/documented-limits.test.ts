import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../shared/http/client/api-client.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient, uniqueEmail, uniquePhone } from './accounts-support.js';

/**
 * The operations' own limits as the OpenAPI document states them (`x-rate-limits`, and each
 * operation's description) are the limits the service applies: for every operation the document
 * gives one, the request after the stated number in one window is refused by that limit.
 */

let service: LocalService;
let client: AccountClient;
let token: string;

beforeAll(async () => {
  service = await startLocalService();
  client = new AccountClient(service);
  token = (await client.verifiedAccount()).tokens.access_token;
});

afterAll(async () => {
  await service?.stop();
});

interface StatedLimit {
  scope: string;
  limit: number;
  window_seconds: number;
  per: 'target' | 'client';
}

/** One well-formed request of each limited operation, about `target` (an email or a phone). */
const requests: Record<string, (target: { email: string; phone: string }) => Promise<Response>> = {
  sendOtp: async ({ phone }) =>
    (
      await client.api.POST('/otp/send', {
        headers: bearer(token),
        body: { phone_number: phone, purpose: 'generic' },
      })
    ).response,
  verifyOtp: async ({ phone }) =>
    (
      await client.api.POST('/otp/verify', {
        headers: bearer(token),
        body: { phone_number: phone, code: '000000', purpose: 'generic' },
      })
    ).response,
  resendEmailOtp: async ({ email }) =>
    (await client.api.POST('/otp/resend/email', { body: { email } })).response,
  resendMobileOtp: async ({ phone }) =>
    (await client.api.POST('/otp/resend/mobile', { body: { mobile_number: phone } })).response,
  verifyEmailOtp: async ({ email }) =>
    (await client.api.POST('/otp/verify/email', { body: { email, otp: '000000' } })).response,
  verifyMobileOtp: async ({ phone }) =>
    (await client.api.POST('/otp/verify/mobile', { body: { mobile_number: phone, otp: '000000' } }))
      .response,
  verifyPhoneAccount: async ({ phone }) =>
    (await client.api.GET('/verify/phone', { params: { query: { phone } } })).response,
};

describe('the limits the document states', () => {
  it('are the limits each operation applies', async () => {
    const { data } = await client.api.GET('/openapi.json');
    const paths = (data as { paths: Record<string, Record<string, Record<string, unknown>>> })
      .paths;
    const limited = Object.values(paths)
      .flatMap((methods) => Object.values(methods))
      .filter((operation) => operation['x-rate-limits'] !== undefined)
      .map((operation) => ({
        name: String(operation.operationId),
        limits: operation['x-rate-limits'] as StatedLimit[],
      }));
    expect(limited.map(({ name }) => name).sort()).toEqual(Object.keys(requests).sort());

    for (const { name, limits } of limited) {
      for (const { limit, window_seconds } of limits) {
        expect(window_seconds, name).toBe(60);
        // One window: a minute boundary must not fall among the requests.
        await client.startOfNextMinute();
        const target = { email: uniqueEmail(), phone: uniquePhone() };
        const send = requests[name]!;
        for (let sent = 0; sent < limit; sent++) {
          const answer = await send(target);
          expect(answer.headers.get('x-ratelimit-limit'), `${name} #${sent + 1}`).not.toBe(
            String(limit),
          );
        }
        const refused = await send(target);
        expect(refused.status, name).toBe(429);
        expect(refused.headers.get('x-ratelimit-limit'), name).toBe(String(limit));
        expect(Number(refused.headers.get('retry-after')), name).toBeGreaterThan(0);
      }
    }
  });
});
