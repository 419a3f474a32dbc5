import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoOtpStore } from '../../shared/adapters/dynamo-otp-store.js';
import type { AccountCodes } from '../../shared/domain/accounts/ports.js';
import { ManualClock } from '../../shared/domain/clock.js';
import { ServiceError } from '../../shared/domain/errors.js';
import type { EmailMessage, SmsMessage } from '../../shared/domain/messages.js';
import { OtpCodes } from '../../shared/domain/otp/codes.js';
import { OtpEngine } from '../../shared/domain/otp/engine.js';
import { useFreshTable } from '../support/table.js';

beforeAll(async () => {
  await useFreshTable();
});

function setup(smsCountries: string[] = []) {
  const emails: EmailMessage[] = [];
  const texts: SmsMessage[] = [];
  // In the future: codes carry their TTL from this clock, and DynamoDB Local deletes expired items.
  const clock = new ManualClock(Date.UTC(2099, 0, 1, 10, 0, 0));
  const codes = new OtpCodes(
    new OtpEngine(dynamoOtpStore, clock, 'test-pepper'),
    { send: async (message) => void emails.push(message) },
    { send: async (message) => void texts.push(message) },
    smsCountries,
  );
  return { codes, emails, texts, clock };
}

const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? '';
const email = () => `${randomUUID()}@example.com`;

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${error}`);
  return error;
}

describe('sending codes', () => {
  it('emails each purpose with its own subject, the code once in text and HTML', async () => {
    const { codes, emails } = setup();
    const subjects: Record<string, string> = {
      signup: 'Verify your email to activate your account',
      verification: 'Confirm your email address',
      password_reset: 'Your password reset code',
    };
    for (const purpose of ['signup', 'verification', 'password_reset'] as const) {
      const to = email();

      await codes.send('email', to, purpose);

      const sent = emails.at(-1)!;
      const code = codeIn(sent.text);
      expect(sent).toMatchObject({ to, subject: subjects[purpose] });
      expect(sent.text.match(/\d{6}/g)).toEqual([code]);
      expect(sent.html).toContain(`>${code}<`);
      expect(sent.text).toContain('10 minutes');
      await codes.verify('email', to, purpose, code);
    }
  });

  it('texts a code that expires in 5 minutes and verifies for its purpose', async () => {
    const { codes, texts } = setup();

    await codes.send('sms', '+14155550100', 'verification');

    const sent = texts.at(-1)!;
    expect(sent.to).toBe('+14155550100');
    expect(sent.text).toMatch(
      /^\d{6} is your code to verify this phone number\. It expires in 5 minutes/,
    );
    await codes.verify('sms', '+14155550100', 'verification', codeIn(sent.text));
  });

  it('refuses to text a country off the allow-list, sending and storing nothing', async () => {
    const { codes, texts } = setup(['US', 'GB']);

    const refused = await failure(codes.send('sms', '+919876543210', 'login'));

    expect(refused.code).toBe('invalid_request');
    expect(refused.details).toEqual([
      { field: 'phone_number', message: 'must be a phone number in one of: US, GB' },
    ]);
    expect(texts).toEqual([]);
    await codes.send('sms', '+447400123456', 'login');
    expect(texts).toHaveLength(1);
  });

  it('delivers nothing when the engine refuses (cooldown)', async () => {
    const { codes, emails } = setup();
    const to = email();
    await codes.send('email', to, 'signup');

    const refused = await failure(codes.send('email', to, 'signup'));

    expect(refused.code).toBe('rate_limited');
    expect(emails.filter((sent) => sent.to === to)).toHaveLength(1);
  });

  it('serves the account use-cases as their AccountCodes', async () => {
    const { codes, emails } = setup();
    const accountCodes: AccountCodes = codes;
    const to = email();

    await accountCodes.send('email', to, 'password_reset');

    await expect(
      accountCodes.verify('email', to, 'password_reset', codeIn(emails.at(-1)!.text)),
    ).resolves.toEqual({});
  });
});
