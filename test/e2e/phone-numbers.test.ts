import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient, type Answer, uniqueEmail, uniquePhone } from './accounts-support.js';

/**
 * Every request field that takes a phone number reads it alike (docs/otp.md: an input that is
 * not a possible phone number is a 400): a possible number is taken even when no region's plan
 * assigns its range today, and an extension is refused in words rather than dropped (a code
 * texted to the main line never reaches the extension the user typed).
 */

let service: LocalService;
let api: AccountClient;
let signedIn: { token: string; password: string };

beforeAll(async () => {
  service = await startLocalService();
  api = new AccountClient(service);
  const account = await api.verifiedAccount();
  signedIn = { token: account.tokens.access_token, password: account.password };
});

afterAll(async () => {
  await service?.stop();
});

/** A possible NANP number in no region's assigned range: `isValid` refused these. */
const unassignedPhone = () => `+1201000${randomInt(1000, 10_000)}`;

let clients = 0;

/** Each request from a loopback address of its own: no test shares a per-client window. */
function send(where: PhoneField, number: string): Promise<Answer> {
  const from = `127.0.2.${++clients}`;
  if (where.method === 'GET') {
    return api.call('GET', `${where.path}?${where.field}=${encodeURIComponent(number)}`, { from });
  }
  return api.call(where.method, where.path, {
    body: { ...where.body(), [where.field]: number },
    token: where.authenticated ? signedIn.token : undefined,
    from,
  });
}

interface PhoneField {
  operation: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  field: string;
  /** The rest of a request that passes validation. */
  body: () => Record<string, unknown>;
  authenticated?: boolean;
}

const phoneFields: PhoneField[] = [
  {
    operation: 'signup',
    method: 'POST',
    path: '/auth/signup',
    field: 'phone',
    body: () => ({ name: 'Ada', email: uniqueEmail(), password: 'correct horse battery' }),
  },
  {
    operation: 'profileUpdate',
    method: 'PUT',
    path: '/profile/update',
    field: 'phone_number',
    body: () => ({ current_password: signedIn.password }),
    authenticated: true,
  },
  {
    operation: 'sendOtp',
    method: 'POST',
    path: '/otp/send',
    field: 'phone_number',
    body: () => ({ purpose: 'login' }),
  },
  {
    operation: 'verifyOtp',
    method: 'POST',
    path: '/otp/verify',
    field: 'phone_number',
    body: () => ({ code: '123456', purpose: 'login' }),
  },
  {
    operation: 'resendMobileOtp',
    method: 'POST',
    path: '/otp/resend/mobile',
    field: 'mobile_number',
    body: () => ({}),
  },
  {
    operation: 'verifyMobileOtp',
    method: 'POST',
    path: '/otp/verify/mobile',
    field: 'mobile_number',
    body: () => ({ otp: '123456' }),
  },
  {
    operation: 'verifyPhoneAccount',
    method: 'GET',
    path: '/verify/phone',
    field: 'phone',
    body: () => ({}),
  },
];

const detailsOf = (answer: Answer): { field: string; message: string }[] =>
  answer.body?.error?.details ?? [];

describe('phone numbers in every request that takes one', () => {
  it.each(phoneFields.map((where) => [where.operation, where] as const))(
    '%s takes a possible number that no region assigns yet',
    async (_, where) => {
      const number = unassignedPhone();

      const answer = await send(where, number);

      // Whatever the operation then answers (a wrong code is still wrong), the number was read.
      expect(detailsOf(answer).filter((detail) => detail.field === where.field)).toEqual([]);
      expect(answer.body?.error?.code).not.toBe('invalid_request');
    },
  );

  it.each(phoneFields.map((where) => [where.operation, where] as const))(
    '%s refuses a number with an extension in words, rather than dropping it',
    async (_, where) => {
      const answer = await send(where, `${uniquePhone()} ext. 12`);

      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(detailsOf(answer)).toEqual([
        {
          field: where.field,
          message: `${where.field} must be a phone number without an extension, e.g. +14155550123`,
        },
      ]);
    },
  );

  it.each([
    ['too few digits', '+1 415 555 012'],
    ['an unknown country calling code', '+999 1234 5678'],
    ['letters', '+1 800 FLOWERS'],
  ])('refuses a number that cannot be one: %s', async (_, number) => {
    const answer = await send(phoneFields.find((where) => where.operation === 'signup')!, number);

    expect(answer.status).toBe(400);
    expect(detailsOf(answer)).toEqual([
      {
        field: 'phone',
        message: 'phone must be a possible phone number in international format, e.g. +14155550123',
      },
    ]);
  });

  it('keeps and answers the possible number in E.164, through the lookup and the profile', async () => {
    const number = unassignedPhone();
    const spaced = `${number.slice(0, 2)} (${number.slice(2, 5)}) ${number.slice(5, 8)}-${number.slice(8)}`;

    const lookup = await api.call('GET', `/verify/phone?phone=${encodeURIComponent(spaced)}`);
    const update = await api.call('PUT', '/profile/update', {
      body: { phone_number: spaced, current_password: signedIn.password },
      token: signedIn.token,
    });

    expect(lookup.body).toEqual({ success: true, data: { phone: number, registered: false } });
    expect(update.status).toBe(200);
    expect(update.body.data.user.pending_phone).toBe(number);
    expect(update.body.data.verification_required).toEqual(['phone_number']);
  });
});
