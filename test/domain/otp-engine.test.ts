import { randomInt, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoOtpStore } from '../../shared/adapters/dynamo-otp-store.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { dynamo } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import { tableName } from '../../shared/config.js';
import { type Clock, ManualClock } from '../../shared/domain/clock.js';
import { Refusal, ServiceError } from '../../shared/domain/errors.js';
import { OtpEngine, type OtpKey } from '../../shared/domain/otp/engine.js';
import { PendingHit } from '../../shared/domain/rate-limit.js';
import { useFreshTable } from '../support/table.js';

beforeAll(async () => {
  await useFreshTable();
});

/** An engine on this file's table with its own clock, at the start of a clock hour. */
function setup() {
  // In the future: codes carry their TTL from this clock, and DynamoDB Local deletes expired items.
  const clock = new ManualClock(Date.UTC(2099, 0, 1, 10, 0, 0));
  const engine = new OtpEngine(dynamoOtpStore, clock, async () => 'test-pepper');
  return { clock, engine };
}

const emailKey = (purpose: OtpKey['purpose'] = 'signup'): OtpKey => ({
  channel: 'email',
  target: `${randomUUID()}@example.com`,
  purpose,
});

// A number of its own per test, as the email keys have: the tests share a table and a clock hour,
// and two of them counting hits on one number (one in 10,000 per pair when it was four random
// digits) read each other's.
const smsKey = (purpose: OtpKey['purpose'] = 'login'): OtpKey => ({
  channel: 'sms',
  target: `+447${String(randomInt(1_000_000_000)).padStart(9, '0')}`,
  purpose,
});

/** The error code a promise rejects with ('ok' when it resolves). */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${error}`);
  return error;
}

/** A target limit no test here reaches: the reservation's transaction, not its refusal. */
const wideTargetLimit = { scope: 'otp-verify-test', limit: 100_000, windowSeconds: 60 };

type Verifier = (
  engine: OtpEngine,
  clock: Clock,
) => (key: OtpKey, code: string) => Promise<unknown>;

/** Both ways of consuming a code hold every rule of the engine alike. */
const verifiers: [string, Verifier][] = [
  [
    'verify, which reads the code’s subject back',
    (engine) => (key, code) => engine.verify(key, code, { source: owner }),
  ],
  [
    'check, which clears the budget in its consuming write and reserves with the target’s hit',
    (engine, clock) => (key, code) =>
      engine.check(key, code, {
        source: owner,
        targetHit: new PendingHit(dynamoWindowCounter, wideTargetLimit, key.target, clock.now()),
      }),
  ],
];

/** Where the owner of the inbox or phone asks and checks from. */
const owner = '198.51.100.1';
/** Another source: someone who never saw the code. */
const stranger = '203.0.113.66';

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

/** Consumes the code as the owner, then fails what it proves with `error`. */
const failingEffect = (engine: OtpEngine, key: OtpKey, code: string, error: Error) =>
  engine.verifyThen(
    key,
    code,
    async () => {
      throw error;
    },
    { source: owner },
  );

describe('the OTP engine', () => {
  it('puts a code back when what it proves fails for a reason a retry may fix, not on a refusal', async () => {
    const { engine } = setup();
    const key = emailKey();
    const { code } = await engine.issue(key, owner);

    const storageDown = failingEffect(
      engine,
      key,
      code,
      new Error('ProvisionedThroughputExceededException'),
    );
    await expect(storageDown).rejects.toThrow('ProvisionedThroughputExceededException');
    const refused = failingEffect(
      engine,
      key,
      code,
      new ServiceError('conflict', 'taken meanwhile'),
    );
    expect(await outcome(refused)).toBe('conflict');

    // Back after the failure, spent by the refusal.
    expect(await outcome(engine.verify(key, code, { source: owner }))).toBe('invalid_otp');
  });

  it('leaves a code spent when what it proves meets an adapter’s refusal (the account changed)', async () => {
    const { engine } = setup();
    const key = emailKey();
    const { code } = await engine.issue(key, owner);

    const refused = failingEffect(engine, key, code, new Refusal('accountChanged'));
    await expect(refused).rejects.toMatchObject({ reason: 'accountChanged' });

    expect(await outcome(engine.verify(key, code, { source: owner }))).toBe('invalid_otp');
  });

  it('issues a 6-digit code that verifies once and is stored only as a digest', async () => {
    const { engine } = setup();
    const key = emailKey();

    const { code } = await engine.issue(key, owner);

    expect(code).toMatch(/^\d{6}$/);
    const stored = await dynamo().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.otp(key.channel, key.target, key.purpose),
      }),
    );
    expect(JSON.stringify(stored.Item)).not.toContain(code);
    expect(await outcome(engine.verify(key, code, { source: owner }))).toBe('ok');
    expect(await outcome(engine.verify(key, code, { source: owner }))).toBe('invalid_otp');
  });

  it('binds a code to its channel, target and purpose', async () => {
    const { engine } = setup();
    const key = emailKey('password_reset');
    const { code } = await engine.issue(key, owner);

    expect(
      await outcome(engine.verify({ ...key, purpose: 'signup' }, code, { source: owner })),
    ).toBe('invalid_otp');
    expect(
      await outcome(
        engine.verify({ ...key, target: 'other@example.com' }, code, { source: owner }),
      ),
    ).toBe('invalid_otp');
    expect(await outcome(engine.verify({ ...key, channel: 'sms' }, code, { source: owner }))).toBe(
      'invalid_otp',
    );
    expect(await outcome(engine.verify(key, code, { source: owner }))).toBe('ok');
  });

  it('answers a wrong code exactly as a target that has no code', async () => {
    const { engine } = setup();
    const pending = emailKey();
    const { code } = await engine.issue(pending, owner);

    const wrongGuess = await failure(engine.verify(pending, wrong(code), { source: owner }));
    const noCode = await failure(engine.verify(emailKey(), code, { source: owner }));

    expect([wrongGuess.code, wrongGuess.message]).toEqual([noCode.code, noCode.message]);
  });

  describe.each(verifiers)('verifying with %s', (_way, verifier) => {
    it('lets an email code live 10 minutes and an SMS code 5, checking expiry in code', async () => {
      const { clock, engine } = setup();
      const verify = verifier(engine, clock);
      const email = emailKey();
      const sms = smsKey();
      const emailCode = await engine.issue(email, owner);
      const smsCode = await engine.issue(sms, owner);
      expect(emailCode.expiresAt - clock.now()).toBe(600_000);
      expect(smsCode.expiresAt - clock.now()).toBe(300_000);

      clock.advance(300_000);

      expect(await outcome(verify(sms, smsCode.code))).toBe('otp_expired');
      clock.advance(299_000);
      expect(await outcome(verify(email, emailCode.code))).toBe('ok');
    });

    it('answers otp_expired for a wrong guess at an expired code too', async () => {
      const { clock, engine } = setup();
      const verify = verifier(engine, clock);
      const key = emailKey();
      const { code } = await engine.issue(key, owner);

      clock.advance(600_000);

      expect(await outcome(verify(key, wrong(code)))).toBe('otp_expired');
      expect(await outcome(verify(key, code))).toBe('otp_expired');
    });

    it('burns the code after 5 wrong attempts', async () => {
      const { clock, engine } = setup();
      const verify = verifier(engine, clock);
      const key = smsKey();
      const { code } = await engine.issue(key, owner);

      for (let attempt = 1; attempt <= 4; attempt++) {
        expect(await outcome(verify(key, wrong(code)))).toBe('invalid_otp');
      }
      const fifth = await failure(verify(key, wrong(code)));

      expect(fifth.code).toBe('too_many_attempts');
      expect(fifth.retryAfterSeconds).toBe(3600);
      expect(await outcome(verify(key, code))).toBe('too_many_attempts');
    });

    it('does not reset the attempt budget when a new code is issued', async () => {
      const { clock, engine } = setup();
      const verify = verifier(engine, clock);
      const key = emailKey('verification');
      const first = await engine.issue(key, owner);
      for (let attempt = 1; attempt <= 3; attempt++) {
        await outcome(verify(key, wrong(first.code)));
      }
      clock.advance(61_000);

      const second = await engine.issue(key, owner);

      expect(await outcome(verify(key, first.code))).toBe('invalid_otp');
      expect(await outcome(verify(key, wrong(second.code)))).toBe('too_many_attempts');
      expect(await outcome(verify(key, second.code))).toBe('too_many_attempts');
      clock.advance(61_000);
      expect(await outcome(engine.issue(key, owner))).toBe('too_many_attempts');
    });

    it('opens a fresh budget once the attempt window has passed', async () => {
      const { clock, engine } = setup();
      const verify = verifier(engine, clock);
      const key = smsKey('generic');
      const { code } = await engine.issue(key, owner);
      for (let attempt = 1; attempt <= 5; attempt++) await outcome(verify(key, wrong(code)));

      clock.advance(3600_000);
      const fresh = await engine.issue(key, owner);

      expect(await outcome(verify(key, wrong(fresh.code)))).toBe('invalid_otp');
      expect(await outcome(verify(key, fresh.code))).toBe('ok');
    });

    it('gives the next code a whole budget after a success', async () => {
      const { clock, engine } = setup();
      const verify = verifier(engine, clock);
      const key = smsKey();
      const first = await engine.issue(key, owner);
      for (let attempt = 1; attempt <= 4; attempt++) await outcome(verify(key, wrong(first.code)));
      expect(await outcome(verify(key, first.code))).toBe('ok');
      clock.advance(61_000);

      const second = await engine.issue(key, owner);

      for (let attempt = 1; attempt <= 4; attempt++) {
        expect(await outcome(verify(key, wrong(second.code)))).toBe('invalid_otp');
      }
      expect(await outcome(verify(key, second.code))).toBe('ok');
    });

    it('lets exactly one of 50 concurrent verifies of one code succeed', async () => {
      const { clock, engine } = setup();
      const verify = verifier(engine, clock);
      const key = emailKey();
      const { code } = await engine.issue(key, owner);

      const results = await Promise.all(
        Array.from({ length: 50 }, () => outcome(verify(key, code))),
      );

      expect(results.filter((result) => result === 'ok')).toHaveLength(1);
      expect(new Set(results)).toEqual(
        new Set(
          results.filter((result) => ['ok', 'invalid_otp', 'too_many_attempts'].includes(result)),
        ),
      );
    });

    it('never verifies any of 1,000 guesses against one target, the right one among them', async () => {
      const { clock, engine } = setup();
      const verify = verifier(engine, clock);
      const key = smsKey();
      const { code } = await engine.issue(key, owner);
      const guesses = Array.from({ length: 1000 }, (_, index) =>
        String((Number(code) + 1 + index) % 1_000_000).padStart(6, '0'),
      );
      guesses[500] = code;

      const results: string[] = [];
      for (let start = 0; start < guesses.length; start += 100) {
        const batch = guesses.slice(start, start + 100);
        results.push(...(await Promise.all(batch.map((guess) => outcome(verify(key, guess))))));
      }

      expect(results).not.toContain('ok');
      expect(results.filter((result) => result === 'invalid_otp').length).toBeLessThanOrEqual(4);
      expect(await outcome(verify(key, code))).toBe('too_many_attempts');
      // 1,000 conditional writes to DynamoDB Local: minutes, not seconds, on a machine under load.
    }, 180_000);
  });

  describe('against sources that never saw the code', () => {
    for (const [name, verifier] of verifiers) {
      it(`leaves the owner's code and attempts whole after a stranger's five wrong codes: ${name}`, async () => {
        const { clock, engine } = setup();
        const key = emailKey('password_reset');
        const { code } = await engine.issue(key, owner);
        const byStranger = (guess: string) =>
          name.startsWith('verify')
            ? engine.verify(key, guess, { source: stranger })
            : engine.check(key, guess, { source: stranger });

        const answers = [];
        for (let attempt = 1; attempt <= 6; attempt++)
          answers.push(await outcome(byStranger(wrong(code))));

        expect(answers).toEqual([
          ...Array(4).fill('invalid_otp'),
          'too_many_attempts',
          'too_many_attempts',
        ]);
        // The stranger is refused even the right code; the owner's own attempts are all there.
        expect(await outcome(byStranger(code))).toBe('too_many_attempts');
        const verify = verifier(engine, clock);
        for (let attempt = 1; attempt <= 4; attempt++) {
          expect(await outcome(engine.verify(key, wrong(code), { source: owner }))).toBe(
            'invalid_otp',
          );
        }
        expect(await outcome(verify(key, code))).toBe('ok');
      });
    }

    it('sends the owner a code that works after a stranger spent its attempts, and refuses the stranger’s', async () => {
      const { clock, engine } = setup();
      const key = smsKey('login');
      const first = await engine.issue(key, owner);
      for (let attempt = 1; attempt <= 5; attempt++) {
        await outcome(engine.verify(key, wrong(first.code), { source: stranger }));
      }
      clock.advance(61_000);

      expect(await outcome(engine.issue(key, stranger))).toBe('too_many_attempts');
      const second = await engine.issue(key, owner);

      expect(await outcome(engine.verify(key, second.code, { source: owner }))).toBe('ok');
    });

    it('compares at most 10 wrong codes a day from one source and 50 from all, all purposes together', async () => {
      const { clock, engine } = setup();
      const target = `${randomUUID()}@example.com`;
      const keyFor = (purpose: OtpKey['purpose']): OtpKey => ({
        channel: 'email',
        target,
        purpose,
      });
      const guess = (purpose: OtpKey['purpose'], source: string) =>
        outcome(engine.verify(keyFor(purpose), '000000', { source }));
      // One source: five at the signup code, five at the reset code, then nothing more today.
      const fromOne = [];
      for (const purpose of ['signup', 'password_reset', 'verification'] as const) {
        for (let attempt = 1; attempt <= 5; attempt++) fromOne.push(await guess(purpose, stranger));
      }
      expect(fromOne.filter((answer) => answer === 'invalid_otp')).toHaveLength(8);
      expect(fromOne.slice(10)).toEqual(Array(5).fill('too_many_attempts'));
      // Four more sources spend the rest of the target's 50.
      for (let source = 1; source <= 4; source++) {
        for (const purpose of ['signup', 'password_reset'] as const) {
          for (let attempt = 1; attempt <= 5; attempt++)
            await guess(purpose, `203.0.113.${source}`);
        }
      }

      // The day's ceiling holds for everyone, the owner included, until the UTC day ends (no
      // code is sent that could not be verified); the owner's right code is then counted as what
      // it is: not a wrong one.
      const refused = await failure(engine.issue(keyFor('verification'), owner));
      expect(refused.code).toBe('too_many_attempts');
      expect(refused.retryAfterSeconds).toBe(14 * 3600);
      expect(await guess('verification', owner)).toBe('too_many_attempts');
      clock.advance(refused.retryAfterSeconds! * 1000);
      const next = await engine.issue(keyFor('verification'), owner);
      expect(
        await outcome(engine.verify(keyFor('verification'), next.code, { source: owner })),
      ).toBe('ok');
      const counted = await dynamo().send(
        new GetCommand({
          TableName: tableName(),
          Key: keys.otpFailures('email', target, undefined, Date.UTC(2099, 0, 2) / 1000),
        }),
      );
      expect(counted.Item?.failures).toBe(0);
    });

    it('counts concurrent wrong codes from 40 sources exactly against the target’s 50', async () => {
      const { engine } = setup();
      const key = smsKey('login');
      const { code } = await engine.issue(key, owner);
      const sources = Array.from({ length: 40 }, (_, index) => `192.0.2.${index + 1}`);

      const answers = await Promise.all(
        sources.flatMap((source) => [
          outcome(engine.verify(key, wrong(code), { source })),
          outcome(engine.verify(key, wrong(code), { source })),
        ]),
      );

      expect(answers.filter((answer) => answer === 'invalid_otp')).toHaveLength(50);
      expect(answers.filter((answer) => answer === 'too_many_attempts')).toHaveLength(30);
      expect(await outcome(engine.verify(key, code, { source: owner }))).toBe('too_many_attempts');
    });
  });

  it('refuses a verification over its target’s per-minute limit in the reservation itself, spending no attempt', async () => {
    const { clock, engine } = setup();
    const key = smsKey();
    const { code } = await engine.issue(key, owner);
    const limit = { scope: 'otp-verify-test', limit: 2, windowSeconds: 60 };
    const hitAt = () => new PendingHit(dynamoWindowCounter, limit, `t-${key.target}`, clock.now());

    expect(
      await outcome(engine.check(key, wrong(code), { source: owner, targetHit: hitAt() })),
    ).toBe('invalid_otp');
    expect(
      await outcome(engine.check(key, wrong(code), { source: owner, targetHit: hitAt() })),
    ).toBe('invalid_otp');
    const third = hitAt();
    const refused = await failure(engine.check(key, code, { source: owner, targetHit: third }));

    expect(refused.code).toBe('rate_limited');
    expect(third.decision).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    // No attempt was spent and nothing consumed: the fourth wrong code is not yet the budget's
    // last (a fifth would burn the code), and the code still verifies.
    clock.advance(60_000);
    expect(
      await outcome(engine.check(key, wrong(code), { source: owner, targetHit: hitAt() })),
    ).toBe('invalid_otp');
    expect(
      await outcome(engine.check(key, wrong(code), { source: owner, targetHit: hitAt() })),
    ).toBe('invalid_otp');
    clock.advance(60_000);
    expect(await outcome(engine.check(key, code, { source: owner, targetHit: hitAt() }))).toBe(
      'ok',
    );
  });

  it('counts the target’s hit in the reservation of the budget’s last attempt too, and keeps the code for its owner', async () => {
    const { clock, engine } = setup();
    const key = smsKey('login');
    const { code } = await engine.issue(key, owner);
    const hitAt = () =>
      new PendingHit(dynamoWindowCounter, wideTargetLimit, key.target, clock.now());
    for (let attempt = 1; attempt <= 4; attempt++) {
      await outcome(engine.check(key, wrong(code), { source: stranger, targetHit: hitAt() }));
    }
    const last = hitAt();

    expect(
      await outcome(engine.check(key, wrong(code), { source: stranger, targetHit: last })),
    ).toBe('too_many_attempts');
    expect(last.counted).toBe(true);
    const refused = hitAt();
    expect(await outcome(engine.check(key, code, { source: stranger, targetHit: refused }))).toBe(
      'too_many_attempts',
    );
    expect(refused.decision).toMatchObject({ allowed: true, remaining: wideTargetLimit.limit - 6 });
    expect(await outcome(engine.verify(key, code, { source: owner }))).toBe('ok');
  });

  it('refuses a second code within the 60-second cooldown, with the seconds left', async () => {
    const { clock, engine } = setup();
    const key = emailKey();
    await engine.issue(key, owner);
    clock.advance(20_000);

    const refused = await failure(engine.issue(key, owner));

    expect(refused.code).toBe('rate_limited');
    expect(refused.retryAfterSeconds).toBe(40);
    clock.advance(40_000);
    expect(await outcome(engine.issue(key, owner))).toBe('ok');
  });

  it('supersedes the previous code with a new one', async () => {
    const { clock, engine } = setup();
    const key = emailKey();
    const first = await engine.issue(key, owner);
    clock.advance(60_000);

    const second = await engine.issue(key, owner);

    expect(await outcome(engine.verify(key, first.code, { source: owner }))).toBe(
      first.code === second.code ? 'ok' : 'invalid_otp',
    );
  });

  it('issues one code when 10 sends for one target race', async () => {
    const { engine } = setup();
    const key = smsKey();

    const results = await Promise.all(
      Array.from({ length: 10 }, () => outcome(engine.issue(key, owner))),
    );

    expect(results.filter((result) => result === 'ok')).toHaveLength(1);
    expect(results.filter((result) => result === 'rate_limited')).toHaveLength(9);
  });

  it('sends at most 3 codes an hour asked by one source, and 10 to one target from all, whatever the purposes', async () => {
    const { clock, engine } = setup();
    const key = emailKey();
    const purposes = ['signup', 'verification', 'password_reset'] as const;
    for (const purpose of purposes) {
      expect(await outcome(engine.issue({ ...key, purpose }, stranger))).toBe('ok');
      clock.advance(61_000);
    }

    const refused = await failure(engine.issue({ ...key, purpose: 'signup' }, stranger));

    expect(refused).toMatchObject({ code: 'rate_limited', limit: 'otp-source-hourly-cap' });
    expect(refused.retryAfterSeconds).toBe(3600 - 3 * 61);
    // The owner is not held by the stranger's codes: not by its cooldown, nor by its hour.
    expect(await outcome(engine.issue({ ...key, purpose: 'password_reset' }, owner))).toBe('ok');
    for (const source of ['203.0.113.1', '203.0.113.2']) {
      for (const purpose of purposes) {
        expect(await outcome(engine.issue({ ...key, purpose }, source))).toBe('ok');
      }
    }
    // Ten codes to the target this hour, from four sources: the target's own bound.
    const full = await failure(engine.issue({ ...key, purpose: 'signup' }, '203.0.113.3'));
    expect(full).toMatchObject({ code: 'rate_limited', limit: 'otp-hourly-cap' });
    clock.advance(full.retryAfterSeconds! * 1000);
    expect(await outcome(engine.issue({ ...key, purpose: 'signup' }, stranger))).toBe('ok');
  });

  it('tells which purpose was sent last for a target', async () => {
    const { clock, engine } = setup();
    const key = emailKey();
    expect(await engine.latestPurpose('email', key.target, ['signup', 'verification'])).toBe(
      undefined,
    );
    await engine.issue({ ...key, purpose: 'signup' }, owner);
    clock.advance(61_000);
    await engine.issue({ ...key, purpose: 'verification' }, owner);

    expect(await engine.latestPurpose('email', key.target, ['signup', 'verification'])).toBe(
      'verification',
    );
  });
});
