import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as forgotPassword } from '../../functions/auth/forgot-password.js';
import { handler as signup } from '../../functions/auth/signup.js';
import { handler as resendEmailOtp } from '../../functions/otp/resend-email-otp.js';
import { handler as resendMobileOtp } from '../../functions/otp/resend-mobile-otp.js';
import { handler as sendOtp } from '../../functions/otp/send-otp.js';
import { handler as sendAccountCode } from '../../functions/workers/send-account-code.js';
import { dynamoUserRepository } from '../../shared/adapters/dynamo-users.js';
import { aroundDynamoCalls } from '../../shared/adapters/dynamodb.js';
import { useMailer } from '../../shared/adapters/ses-mailer.js';
import { useSmsSender } from '../../shared/adapters/sns-sms-sender.js';
import { sqsClient } from '../../shared/adapters/sqs.js';
import {
  SqsAccountCodeQueue,
  useAccountCodeQueue,
} from '../../shared/adapters/sqs-account-code-queue.js';
import { signupNoticeWindowMs } from '../../shared/domain/accounts/signup-follow-up.js';
import { newId, type User } from '../../shared/domain/accounts/user.js';
import { advanceSystemClock } from '../../shared/domain/clock.js';
import { BatchFailedError } from '../../shared/lambda/queue-worker.js';
import { LocalOutbox } from '../../shared/local/local-outbox.js';
import { sqsAnswer, useRecordingEndpoint } from '../support/aws-endpoint.js';
import { invoke, lambdaContext, restEvent, sqsRecord } from '../support/events.js';
import { useFreshTable } from '../support/table.js';

/**
 * signup, forgotPassword, resendEmailOtp, resendMobileOtp and sendOtp (login) must not tell an
 * account from no account (nor a verified phone from an unverified one),
 * by their answer nor by the AWS calls on their request path (whose latency an attacker can
 * measure). These tests record every DynamoDB call (a middleware on the DocumentClient, like the
 * bench's counter) and every SQS call (the real SQS adapter and client, sending to a recording
 * stand-in) of a request.
 */

/** The calls of one request: DynamoDB in order, by command, key kind and read options; SQS sends. */
interface Calls {
  dynamo: string[];
  sqs: string[];
}

let calls: Calls = { dynamo: [], sqs: [] };
const queued: SQSRecord[] = [];
const outbox = new LocalOutbox(() => undefined);
let sesDown = false;
/** SQS: takes every message, and queues it for the worker as SQS would deliver it. */
const sqs = useRecordingEndpoint((received) => {
  const answer = sqsAnswer(received);
  calls.sqs.push(String(received.headers['x-amz-target']).replace('AmazonSQS.', ''));
  queued.push(
    sqsRecord(
      (JSON.parse(answer.body) as { MessageId: string }).MessageId,
      (JSON.parse(received.body) as { MessageBody: string }).MessageBody,
    ),
  );
  return answer;
});

const kindOf = (pk: string) => pk.slice(0, pk.indexOf('#') + 1);

/**
 * `GetItem USER# consistent email_verified`, `TransactWriteItems [Put USER#, Put EMAIL# ALL_OLD]`:
 * the call without the values it carries.
 */
function describeCall(command: string, input: Record<string, unknown>): string {
  const key = input.Key as { pk?: string } | undefined;
  const kind = key?.pk === undefined ? '' : ` ${kindOf(key.pk)}`;
  const consistent = input.ConsistentRead === true ? ' consistent' : '';
  const projection =
    typeof input.ProjectionExpression === 'string' ? ` ${input.ProjectionExpression}` : '';
  const transaction = Array.isArray(input.TransactItems)
    ? ` [${input.TransactItems.map((entry: Record<string, Record<string, unknown>>) =>
        Object.entries(entry)
          .map(([operation, { Item, Key, ReturnValuesOnConditionCheckFailure: old }]) => {
            const pk = ((Item ?? Key) as { pk: string }).pk;
            return `${operation} ${kindOf(pk)}${old === undefined ? '' : ` ${old}`}`;
          })
          .join(),
      ).join(', ')}]`
    : '';
  return `${command}${kind}${consistent}${projection}${transaction}`;
}

beforeAll(async () => {
  await useFreshTable();
  process.env.RATE_LIMIT_PER_MINUTE = '100000';
  process.env.OTP_PEPPER = 'test-pepper';
  process.env.EMAIL_FROM = 'no-reply@example.com';
  aroundDynamoCalls(async ({ operation, input }, next) => {
    calls.dynamo.push(describeCall(operation, input as Record<string, unknown>));
    return next();
  });
  useAccountCodeQueue(
    new SqsAccountCodeQueue(
      sqsClient({ endpoint: sqs.url }),
      `${sqs.url}/123456789012/account-code`,
    ),
  );
  // The code engine takes the mailer once per process: this one can be told to fail.
  useMailer({
    send: async (message) => {
      if (sesDown) throw new Error('SES is down');
      await outbox.mail.send(message);
    },
  });
  useSmsSender(outbox.sms);
});

beforeEach(() => {
  queued.length = 0;
});

type Handler = typeof forgotPassword;

/** What a caller learns from an answer about the target (rate-limit headers are per client). */
const seen = (answer: { status: number; body: unknown }) => ({
  status: answer.status,
  body: answer.body,
});

/** Invokes one request and returns its answer with the calls it made on the way. */
async function request(handler: Handler, body: unknown) {
  calls = { dynamo: [], sqs: [] };
  const answer = await invoke(handler, restEvent({ body: JSON.stringify(body) }));
  return { answer, calls };
}

/** What the worker does with the messages queued so far (each delivered as SQS would). */
async function runWorker(records: SQSRecord[] = queued.splice(0)) {
  return sendAccountCode({ Records: records } satisfies SQSEvent, lambdaContext);
}

let n = 0;
const uniqueEmail = () => `code-${Date.now()}-${n++}@example.com`;
/** Unique in this file's fresh table. */
const uniquePhone = () => `+1415${2_000_000 + n++}`;

/** An account as signup leaves it (a phone pending), its phone verified if asked. */
async function account(options: {
  emailVerified: boolean;
  phone?: string;
  phoneVerified?: boolean;
}) {
  const email = uniqueEmail();
  const user: User = {
    id: newId('usr'),
    name: 'Ada',
    email,
    phone: null,
    pendingEmail: null,
    pendingPhone: options.phone ?? null,
    gender: null,
    onlineStatus: false,
    emailVerified: options.emailVerified,
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    passwordResetRequired: false,
    signupContested: false,
    signupRecovery: false,
    phoneConfirmationRequired: false,
    totpEnabled: false,
    signupNames: ['Ada'],
    createdAt: new Date().toISOString(),
  };
  expect(await dynamoUserRepository.create(user)).toEqual({ outcome: 'created' });
  if (options.phone !== undefined && options.phoneVerified === true) {
    expect(await dynamoUserRepository.confirmPendingPhone(user, options.phone)).toBe('confirmed');
  }
  return { email, id: user.id };
}

const subjectsTo = (to: string) => outbox.list(to).map((entry) => entry.subject ?? entry.channel);

describe('signup', () => {
  const attempt = (email: string) =>
    request(signup, { name: 'Eve', email, password: 'a newer password' });
  const holderOf = async (email: string) => (await dynamoUserRepository.findByEmail(email))!;

  it('makes the same AWS calls for a fresh email and one taken unverified or verified', async () => {
    const { email: unverified } = await account({ emailVerified: false });
    const { email: verified } = await account({ emailVerified: true });
    const fresh = uniqueEmail();

    const results = [];
    for (const email of [fresh, unverified, verified]) results.push(await attempt(email));

    const [forFresh, forUnverified, forVerified] = results.map((result) => result.calls);
    expect(forFresh).toEqual({
      dynamo: [
        'UpdateItem RATE#',
        'GetItem EMAIL# consistent user_id',
        'GetItem USER# consistent password_hash, email_verified',
        'TransactWriteItems [Put USER#, Put EMAIL# ALL_OLD]',
        'UpdateItem USER#',
      ],
      sqs: ['SendMessage'],
    });
    expect(forUnverified).toEqual(forFresh);
    expect(forVerified).toEqual(forFresh);
    const answers = results.map(({ answer }) => ({
      ...seen(answer),
      body: { ...answer.body, data: { ...answer.body.data, email: 'the email' } },
    }));
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(answers[0]!.status).toBe(201);
    // Nothing is sent on the request path; the message says what to do, never a code.
    for (const email of [fresh, unverified, verified]) expect(outbox.list(email)).toEqual([]);
    // Each message carries the id its request was answered with: the worker's lines carry it too.
    const requestIds = results.map(({ answer }) => answer.headers['x-request-id']);
    expect(queued.map((record) => JSON.parse(record.body))).toEqual(
      [fresh, unverified, verified].map((target, index) => ({
        kind: 'signup',
        target,
        source: expect.any(String),
        correlation_id: requestIds[index],
      })),
    );
  });

  it('has the worker send the code of a fresh account', async () => {
    const fresh = uniqueEmail();
    await attempt(fresh);

    const result = await runWorker();

    expect(result.batchItemFailures).toEqual([]);
    expect(subjectsTo(fresh)).toEqual(['Verify your email to activate your account']);
    expect((await holderOf(fresh)).emailVerified).toBe(false);
  });

  it('marks a pending account contested, writing none of the new credentials, and sends a code', async () => {
    const { email: pending } = await account({ emailVerified: false });
    const before = await holderOf(pending);
    await attempt(pending);

    const result = await runWorker();

    expect(result.batchItemFailures).toEqual([]);
    expect(subjectsTo(pending)).toEqual(['Verify your email to activate your account']);
    const after = await holderOf(pending);
    expect(after).toMatchObject({
      id: before.id,
      name: 'Ada',
      passwordHash: before.passwordHash,
      signupContested: true,
    });
    expect(after.signupNames.sort()).toEqual(['Ada', 'Eve']);
  });

  it('leaves a fresh account uncontested: the same write, refused', async () => {
    const fresh = uniqueEmail();
    await attempt(fresh);

    expect(await holderOf(fresh)).toMatchObject({ signupContested: false, signupNames: ['Eve'] });
  });

  it('keeps a verified account as it was and mails its owner one notice, not two on redelivery', async () => {
    const { email: verified } = await account({ emailVerified: true });
    const before = await holderOf(verified);
    await attempt(verified);
    const [record] = queued.splice(0);

    const first = await runWorker([record!]);
    const again = await runWorker([sqsRecord(record!.messageId, record!.body, 2)]);

    expect([first.batchItemFailures, again.batchItemFailures]).toEqual([[], []]);
    expect(subjectsTo(verified)).toEqual(['Someone tried to sign up with your email']);
    expect(await holderOf(verified)).toEqual(before);
  });

  it('mails a verified owner at most one notice a day however often their email is tried', async () => {
    const { email: verified } = await account({ emailVerified: true });
    for (let i = 0; i < 3; i++) await attempt(verified);
    await runWorker();
    advanceSystemClock(signupNoticeWindowMs - 60_000);
    await attempt(verified);
    await runWorker();
    expect(subjectsTo(verified)).toHaveLength(1);

    advanceSystemClock(60_000);
    await attempt(verified);
    await runWorker();

    expect(subjectsTo(verified)).toEqual([
      'Someone tried to sign up with your email',
      'Someone tried to sign up with your email',
    ]);
  });

  it('retries a notice whose email failed, and the redelivery sends it', async () => {
    const { email: verified } = await account({ emailVerified: true });
    await attempt(verified);
    const [record] = queued.splice(0);
    sesDown = true;

    // The batch's one record failed, so the invocation fails (the worker's error alarm counts
    // it) and SQS delivers the message again.
    await expect(runWorker([record!])).rejects.toThrow(BatchFailedError);
    sesDown = false;
    const redelivered = await runWorker([sqsRecord(record!.messageId, record!.body, 2)]);

    expect(redelivered.batchItemFailures).toEqual([]);
    expect(subjectsTo(verified)).toEqual(['Someone tried to sign up with your email']);
  });
});

describe('forgotPassword', () => {
  it('makes the same AWS calls for an unknown, an unverified and a verified email', async () => {
    const { email: unverified } = await account({ emailVerified: false });
    const { email: verified } = await account({ emailVerified: true });
    const unknown = uniqueEmail();

    const results = [];
    for (const email of [unknown, unverified, verified]) {
      results.push(await request(forgotPassword, { email }));
    }

    const [forUnknown, forUnverified, forVerified] = results.map((result) => result.calls);
    expect(forUnknown).toEqual({
      dynamo: [
        'UpdateItem RATE#',
        'GetItem EMAIL# consistent user_id',
        'GetItem USER# consistent email_verified',
      ],
      sqs: ['SendMessage'],
    });
    expect(forUnverified).toEqual(forUnknown);
    expect(forVerified).toEqual(forUnknown);
    // Nothing is sent on the request path; the message says what to do, never a code.
    expect(outbox.list(unverified)).toEqual([]);
    expect(outbox.list(verified)).toEqual([]);
    expect(queued.map((record) => JSON.parse(record.body))).toEqual(
      [unknown, unverified, verified].map((target) => ({
        kind: 'forgot_password',
        target,
        source: expect.any(String),
        correlation_id: expect.stringMatching(/^req-/),
      })),
    );
  });

  it('answers an unknown email exactly like a verified one, and tells an unverified one', async () => {
    const { email: unverified } = await account({ emailVerified: false });
    const { email: verified } = await account({ emailVerified: true });

    const toUnknown = await request(forgotPassword, { email: uniqueEmail() });
    const toVerified = await request(forgotPassword, { email: verified });
    const toUnverified = await request(forgotPassword, { email: unverified });

    expect(seen(toUnknown.answer)).toEqual(seen(toVerified.answer));
    expect(toVerified.answer.body.data.verification_required).toBe(false);
    expect(toUnverified.answer.status).toBe(200);
    expect(toUnverified.answer.body.data.verification_required).toBe(true);
  });

  it('has the worker send a reset code, a sign-up code, or nothing', async () => {
    const { email: unverified } = await account({ emailVerified: false });
    const { email: verified } = await account({ emailVerified: true });
    const unknown = uniqueEmail();
    for (const email of [unknown, unverified, verified]) await request(forgotPassword, { email });

    const result = await runWorker();

    expect(result.batchItemFailures).toEqual([]);
    expect(subjectsTo(verified)).toEqual(['Your password reset code']);
    expect(subjectsTo(unverified)).toEqual(['Verify your email to activate your account']);
    expect(outbox.list(unknown)).toEqual([]);
    // The pending signup is a recovery now: its activation will keep only the email.
    const holderOf = async (email: string) => (await dynamoUserRepository.findByEmail(email))!;
    expect(await holderOf(unverified)).toMatchObject({ signupRecovery: true });
    expect(await holderOf(verified)).toMatchObject({ signupRecovery: false });
  });

  it('sends one code for a message delivered twice', async () => {
    const { email: verified } = await account({ emailVerified: true });
    await request(forgotPassword, { email: verified });
    const [record] = queued.splice(0);

    const first = await runWorker([record!]);
    const again = await runWorker([sqsRecord(record!.messageId, record!.body, 2)]);

    expect([first.batchItemFailures, again.batchItemFailures]).toEqual([[], []]);
    expect(subjectsTo(verified)).toEqual(['Your password reset code']);
  });

  it('retries a code whose email failed, and the redelivery after the cooldown sends it', async () => {
    const { email: verified } = await account({ emailVerified: true });
    await request(forgotPassword, { email: verified });
    const [record] = queued.splice(0);
    sesDown = true;

    await expect(runWorker([record!])).rejects.toThrow(BatchFailedError);
    sesDown = false;
    // The queue's visibility timeout (180 s) outlasts the 60 s cooldown of the code engine.
    advanceSystemClock(61_000);
    const redelivered = await runWorker([sqsRecord(record!.messageId, record!.body, 2)]);

    expect(redelivered.batchItemFailures).toEqual([]);
    expect(subjectsTo(verified)).toEqual(['Your password reset code']);
  });

  it('drops a message it did not write instead of retrying it forever', async () => {
    const result = await runWorker([sqsRecord(randomUUID(), '{"kind":"mail_everyone"}')]);

    expect(result.batchItemFailures).toEqual([]);
  });
});

describe('resendEmailOtp and resendMobileOtp', () => {
  it('make the same AWS calls for every email: the limiters and one SendMessage', async () => {
    const { email: pending } = await account({ emailVerified: false });
    const { email: verified } = await account({ emailVerified: true });

    const results = [];
    for (const email of [uniqueEmail(), pending, verified]) {
      results.push(await request(resendEmailOtp, { email }));
    }

    for (const { answer, calls: made } of results) {
      expect(made).toEqual({
        dynamo: ['UpdateItem RATE#', 'UpdateItem RATE#'],
        sqs: ['SendMessage'],
      });
      expect(seen(answer)).toEqual(seen(results[0]!.answer));
    }
    expect(results[0]!.answer.body.data.expires_in).toBe(600);
    expect(outbox.list(pending)).toEqual([]);
  });

  it('make the same AWS calls for every number', async () => {
    const pendingPhone = uniquePhone();
    const verifiedPhone = uniquePhone();
    await account({ emailVerified: true, phone: pendingPhone });
    await account({ emailVerified: true, phone: verifiedPhone, phoneVerified: true });

    const results = [];
    for (const phone of [uniquePhone(), pendingPhone, verifiedPhone]) {
      results.push(await request(resendMobileOtp, { mobile_number: phone }));
    }

    for (const { answer, calls: made } of results) {
      expect(made).toEqual({
        dynamo: ['UpdateItem RATE#', 'UpdateItem RATE#'],
        sqs: ['SendMessage'],
      });
      expect(seen(answer)).toEqual(seen(results[0]!.answer));
    }
    expect(results[0]!.answer.body.data.expires_in).toBe(300);
  });

  it('have the worker send a code only to an email or number waiting for verification', async () => {
    const { email: pending } = await account({ emailVerified: false });
    const { email: verified } = await account({ emailVerified: true });
    const pendingPhone = uniquePhone();
    const verifiedPhone = uniquePhone();
    const owner = await account({ emailVerified: true, phone: pendingPhone });
    await account({ emailVerified: true, phone: verifiedPhone, phoneVerified: true });
    const unknownEmail = uniqueEmail();
    const unknownPhone = uniquePhone();
    // The pending phone's first code, as an activation or a profile change queues it.
    await runWorker([
      sqsRecord(
        randomUUID(),
        JSON.stringify({ kind: 'resend_mobile', target: pendingPhone, subject: owner.id }),
      ),
    ]);
    advanceSystemClock(61_000);
    for (const email of [unknownEmail, pending, verified]) {
      await request(resendEmailOtp, { email });
    }
    for (const phone of [unknownPhone, pendingPhone, verifiedPhone]) {
      await request(resendMobileOtp, { mobile_number: phone });
    }

    const result = await runWorker();

    expect(result.batchItemFailures).toEqual([]);
    expect(subjectsTo(pending)).toEqual(['Verify your email to activate your account']);
    // The public resend goes to the account its last code was for.
    expect(subjectsTo(pendingPhone)).toEqual(['sms', 'sms']);
    for (const nobody of [unknownEmail, verified, unknownPhone, verifiedPhone]) {
      expect(outbox.list(nobody), nobody).toEqual([]);
    }
  });

  it('never texts the phone of a signup that is not activated', async () => {
    const phone = uniquePhone();
    const { id } = await account({ emailVerified: false, phone });
    await request(resendMobileOtp, { mobile_number: phone });
    await runWorker();

    await runWorker([
      sqsRecord(
        randomUUID(),
        JSON.stringify({ kind: 'resend_mobile', target: phone, subject: id }),
      ),
    ]);

    expect(outbox.list(phone)).toEqual([]);
  });

  it('still refuses a number off the SMS allow-list on the request path, queueing nothing', async () => {
    process.env.SMS_ALLOWED_COUNTRIES = 'GB';
    try {
      const { answer, calls: made } = await request(resendMobileOtp, {
        mobile_number: uniquePhone(),
      });

      expect(answer.status).toBe(400);
      expect(answer.body.error.details).toEqual([
        { field: 'mobile_number', message: 'mobile_number must be a phone number in one of: GB' },
      ]);
      expect(made.sqs).toEqual([]);
    } finally {
      delete process.env.SMS_ALLOWED_COUNTRIES;
    }
  });
});

describe('sendOtp with purpose login', () => {
  const sendLogin = (phone: string) => request(sendOtp, { phone_number: phone, purpose: 'login' });

  it('makes the same AWS calls and answer for an unknown, an unverified and a verified phone', async () => {
    const unverifiedPhone = uniquePhone();
    const verifiedPhone = uniquePhone();
    await account({ emailVerified: true, phone: unverifiedPhone });
    await account({ emailVerified: true, phone: verifiedPhone, phoneVerified: true });
    const phones = [uniquePhone(), unverifiedPhone, verifiedPhone];

    const results = [];
    for (const phone of phones) results.push(await sendLogin(phone));

    for (const { answer, calls: made } of results) {
      expect(made).toEqual({
        dynamo: ['UpdateItem RATE#', 'UpdateItem RATE#', 'BatchGetItem'],
        sqs: ['SendMessage'],
      });
      expect(answer.status).toBe(200);
      expect({ ...answer.body.data, phone_number: 'the number' }).toEqual({
        ...results[0]!.answer.body.data,
        phone_number: 'the number',
      });
    }
    expect(queued.map((record) => JSON.parse(record.body))).toEqual(
      phones.map((target) => ({
        kind: 'sms_login',
        target,
        source: expect.any(String),
        correlation_id: expect.stringMatching(/^req-/),
      })),
    );
  });

  it('has the worker text a login code to the verified phone only, and once for a redelivery', async () => {
    const pendingEmailPhone = uniquePhone();
    const unverifiedPhone = uniquePhone();
    const verifiedPhone = uniquePhone();
    await account({ emailVerified: false, phone: pendingEmailPhone, phoneVerified: true });
    await account({ emailVerified: true, phone: unverifiedPhone });
    await account({ emailVerified: true, phone: verifiedPhone, phoneVerified: true });
    const unknownPhone = uniquePhone();
    for (const phone of [unknownPhone, pendingEmailPhone, unverifiedPhone, verifiedPhone]) {
      await sendLogin(phone);
    }
    const records = queued.splice(0);

    const result = await runWorker(records);
    const redelivered = await runWorker([sqsRecord(records[3]!.messageId, records[3]!.body, 2)]);

    expect([result.batchItemFailures, redelivered.batchItemFailures]).toEqual([[], []]);
    expect(outbox.list(verifiedPhone).map((entry) => entry.text)).toEqual([
      expect.stringMatching(/^\d{6} is your login code\./),
    ]);
    for (const nobody of [unknownPhone, pendingEmailPhone, unverifiedPhone]) {
      expect(outbox.list(nobody), nobody).toEqual([]);
    }
  });
});
