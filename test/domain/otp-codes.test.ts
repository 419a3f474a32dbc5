import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoGenericSmsCounter } from '../../shared/adapters/dynamo-generic-sms-counter.js';
import { dynamoOtpStore } from '../../shared/adapters/dynamo-otp-store.js';
import { dynamoSmsCounter } from '../../shared/adapters/dynamo-sms-counter.js';
import type { AccountCodes } from '../../shared/domain/accounts/ports.js';
import { ManualClock } from '../../shared/domain/clock.js';
import { ServiceError } from '../../shared/domain/errors.js';
import type { EmailMessage, SmsMessage } from '../../shared/domain/messages.js';
import { OtpCodes } from '../../shared/domain/otp/codes.js';
import { OtpEngine } from '../../shared/domain/otp/engine.js';
import { GenericSmsAllowance } from '../../shared/domain/otp/generic-sms.js';
import { SmsCap } from '../../shared/domain/otp/sms-cap.js';
import { useFreshTable } from '../support/table.js';

beforeAll(async () => {
  await useFreshTable();
});

let days = 0;

/** Where the requests of these tests come from: one caller. */
const source = '192.0.2.7';

function setup(
  smsCountries: string[] = [],
  smsPerHour = 1000,
  generic = { numbersPerHour: 100, perDay: 100 },
  reservedPercent = 0,
) {
  const emails: EmailMessage[] = [];
  const texts: SmsMessage[] = [];
  // In the future: codes carry their TTL from this clock, and DynamoDB Local deletes expired items.
  // Each setup a day of its own, so the service-wide SMS count starts at zero in every test.
  const clock = new ManualClock(Date.UTC(2099, 0, 1, 10, 0, 0) + days++ * 86_400_000);
  const codes = new OtpCodes(
    new OtpEngine(dynamoOtpStore, clock, async () => 'test-pepper'),
    { send: async (message) => void emails.push(message) },
    { send: async (message) => void texts.push(message) },
    smsCountries,
    new SmsCap(dynamoSmsCounter, clock, smsPerHour, reservedPercent),
    new GenericSmsAllowance(dynamoGenericSmsCounter, clock, generic),
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

      await codes.send('email', to, purpose, source);

      const sent = emails.at(-1)!;
      const code = codeIn(sent.text);
      expect(sent).toMatchObject({ to, subject: subjects[purpose] });
      expect(sent.text.match(/\d{6}/g)).toEqual([code]);
      expect(sent.html).toContain(`>${code}<`);
      expect(sent.text).toContain('10 minutes');
      await codes.verify('email', to, purpose, code, { source });
    }
  });

  it('texts a code that expires in 5 minutes and verifies for its purpose', async () => {
    const { codes, texts } = setup();

    await codes.send('sms', '+14155550100', 'verification', source);

    const sent = texts.at(-1)!;
    expect(sent.to).toBe('+14155550100');
    expect(sent.text).toMatch(
      /^\d{6} is your code to verify this phone number\. It expires in 5 minutes/,
    );
    await codes.verify('sms', '+14155550100', 'verification', codeIn(sent.text), { source });
  });

  it('refuses to text a country off the allow-list, sending and storing nothing', async () => {
    const { codes, texts } = setup(['US', 'GB']);

    const refused = await failure(codes.send('sms', '+919876543210', 'login', source));

    expect(refused.code).toBe('invalid_request');
    expect(refused.details).toEqual([
      { field: 'phone_number', message: 'must be a phone number in one of: US, GB' },
    ]);
    expect(texts).toEqual([]);
    await codes.send('sms', '+447400123456', 'login', source);
    expect(texts).toHaveLength(1);
  });

  it('delivers nothing when the engine refuses (cooldown)', async () => {
    const { codes, emails } = setup();
    const to = email();
    await codes.send('email', to, 'signup', source);

    const refused = await failure(codes.send('email', to, 'signup', source));

    expect(refused.code).toBe('rate_limited');
    expect(emails.filter((sent) => sent.to === to)).toHaveLength(1);
  });

  it('binds a code to the user it is for: it verifies for that user only', async () => {
    const { codes, texts } = setup();
    const phone = '+14155550177';
    await codes.send('sms', phone, 'generic', source, 'usr_owner');
    const code = codeIn(texts.at(-1)!.text);

    const byOther = await failure(
      codes.verify('sms', phone, 'generic', code, { source, subject: 'usr_other' }),
    );
    const unbound = await failure(codes.verify('sms', phone, 'generic', code, { source }));

    expect([byOther.code, unbound.code]).toEqual(['invalid_otp', 'invalid_otp']);
    await codes.verify('sms', phone, 'generic', code, { source, subject: 'usr_owner' });
  });

  it('texts one account’s generic codes to so many numbers an hour and so many a day, counting only texts sent', async () => {
    const { codes, texts, clock } = setup([], 1000, { numbersPerHour: 2, perDay: 3 });
    const [first, second, third] = ['+14155550301', '+14155550302', '+14155550303'];
    await codes.send('sms', first, 'generic', source, 'usr_counted');
    await codes.send('sms', second, 'generic', source, 'usr_counted');

    const numbers = await failure(codes.send('sms', third, 'generic', source, 'usr_counted'));
    // The same number again is no new number; its cooldown refuses it and gives the text back.
    const cooldown = await failure(codes.send('sms', first, 'generic', source, 'usr_counted'));
    clock.advance(61_000);
    await codes.send('sms', first, 'generic', source, 'usr_counted');
    const day = await failure(codes.send('sms', second, 'generic', '192.0.2.8', 'usr_counted'));

    expect(numbers).toMatchObject({ code: 'rate_limited', limit: 'generic-sms-numbers' });
    expect(numbers.retryAfterSeconds).toBe(3600);
    expect(cooldown).toMatchObject({ code: 'rate_limited', limit: 'otp-cooldown' });
    expect(day).toMatchObject({ code: 'rate_limited', limit: 'generic-sms-texts' });
    expect(day.retryAfterSeconds).toBe(14 * 3600 - 61);
    expect(texts.map((text) => text.to)).toEqual([first, second, first]);
    // Another account is counted apart.
    await codes.send('sms', third, 'generic', source, 'usr_other');
  });

  it('keeps the hour’s last share from generic codes, for sign-in and verification texts', async () => {
    const { codes, texts } = setup([], 10, { numbersPerHour: 100, perDay: 100 }, 20);
    const phones = Array.from({ length: 10 }, (_, index) => `+1415555040${index}`);
    for (const phone of phones.slice(0, 8)) {
      await codes.send('sms', phone, 'generic', source, 'usr_many');
    }

    const generic = await failure(codes.send('sms', phones[8]!, 'generic', source, 'usr_many'));
    await codes.send('sms', phones[8]!, 'login', source);
    await codes.send('sms', phones[9]!, 'verification', source, 'usr_many');
    const spent = await failure(codes.send('sms', '+14155550499', 'login', source));

    expect(generic).toMatchObject({ code: 'rate_limited', limit: 'sms-generic-share' });
    expect(spent).toMatchObject({ code: 'rate_limited', limit: 'sms-hourly-cap' });
    expect(texts).toHaveLength(10);
  });

  it('texts no more than the service-wide cap in a clock hour, then refuses every number alike', async () => {
    const { codes, texts, clock } = setup([], 3);
    const phones = ['+14155550181', '+14155550182', '+14155550183', '+14155550184'];
    for (const phone of phones.slice(0, 3))
      await codes.send('sms', phone, 'generic', source, 'usr_a');

    const refused = await failure(codes.send('sms', phones[3]!, 'generic', source, 'usr_a'));
    const again = await failure(codes.send('sms', phones[3]!, 'login', source));

    expect(refused).toMatchObject({ code: 'rate_limited', details: [] });
    expect(again.message).toBe(refused.message);
    expect(refused.message).not.toContain(phones[3]!);
    expect(refused.retryAfterSeconds).toBe(3600);
    expect(texts.map((text) => text.to)).toEqual(phones.slice(0, 3));
    // Refused by the cap, nothing was stored for the number: its cooldown has not started.
    clock.advance(3_600_000);
    await codes.send('sms', phones[3]!, 'generic', source, 'usr_a');
    expect(texts.at(-1)!.to).toBe(phones[3]);
  });

  it('gives the text back when the code itself is refused, so refusals do not spend the cap', async () => {
    const { codes, texts } = setup([], 2);
    const phone = '+14155550191';
    await codes.send('sms', phone, 'generic', source, 'usr_b');
    for (let retry = 0; retry < 3; retry++) {
      expect((await failure(codes.send('sms', phone, 'generic', source, 'usr_b'))).code).toBe(
        'rate_limited',
      );
    }

    await codes.send('sms', '+14155550192', 'generic', source, 'usr_b');

    expect(texts).toHaveLength(2);
  });

  it('withdraws a code SES or SNS did not take: the retry sends at once, and the hour counts only sent codes', async () => {
    const { codes, emails, texts, clock } = setup([], 1);
    let failing = true;
    const flaky = new OtpCodes(
      codes.engine,
      {
        send: async (message) =>
          failing ? Promise.reject(new Error('SES down')) : void emails.push(message),
      },
      {
        send: async (message) =>
          failing ? Promise.reject(new Error('SNS down')) : void texts.push(message),
      },
      [],
      codes.smsCap,
      new GenericSmsAllowance(dynamoGenericSmsCounter, clock, { numbersPerHour: 100, perDay: 100 }),
    );
    const to = email();
    for (let retry = 0; retry < 6; retry++) {
      await expect(flaky.send('email', to, 'signup', source)).rejects.toThrow('SES down');
      await expect(flaky.send('sms', '+14155550177', 'login', source)).rejects.toThrow('SNS down');
    }
    failing = false;

    await flaky.send('email', to, 'signup', source);
    await flaky.send('sms', '+14155550177', 'login', source);

    await codes.verify('email', to, 'signup', codeIn(emails.at(-1)!.text), { source });
    await codes.verify('sms', '+14155550177', 'login', codeIn(texts.at(-1)!.text), { source });
    // Two more sends from this source fit in the hour (three in all): the six failures were not
    // counted.
    for (let more = 0; more < 2; more++) {
      clock.advance(61_000);
      await flaky.send('email', to, 'signup', source);
    }
    expect((await failure(flaky.send('email', to, 'signup', source))).code).toBe('rate_limited');
  });

  it('serves the account use-cases as their AccountCodes', async () => {
    const { codes, emails } = setup();
    const accountCodes: AccountCodes = codes;
    const to = email();

    await accountCodes.send('email', to, 'password_reset', source);

    await expect(
      accountCodes.verifyThen(
        'email',
        to,
        'password_reset',
        codeIn(emails.at(-1)!.text),
        async (proof) => proof,
        { source },
      ),
    ).resolves.toEqual({});
  });
});
