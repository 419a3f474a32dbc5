import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type {
  AttemptReservation,
  AttemptTerms,
  BudgetKey,
  FailureDay,
  OtpKey,
  OtpSource,
  OtpStore,
  StoredOtp,
} from '../domain/otp/engine.js';
import type { PendingHit } from '../domain/rate-limit.js';
import { countHitWithinLimit } from './dynamo-window-counter.js';
import { deleteIf, getItem, putIfAbsent, transactWrite } from './dynamodb.js';
import { type ItemKey, keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * Codes, attempt budgets and send counters as items of the single table. Every rule of the engine
 * is a condition of one write, never a read followed by a write.
 *
 * - `OTP#channel#target#purpose[#subject]`: the live code's digest, issuedAt, expiresAt (epoch ms),
 *   the subject it proves the target for, if any, and the source that asked for it; `#subject`
 *   ends the key of a purpose whose codes are their subject's alone (generic). Kept a week past
 *   expiry (TTL) so resend can tell which purpose was pending and for whom; an expired code never
 *   verifies, as expiry is checked in code.
 * - `OTP_ATTEMPTS#channel#target#purpose[#subject]` / `SOURCE#<source>`: attempts one source spent
 *   and the end of their window.
 * - `OTP_SENDS#channel#target` / `<hour start>`: codes sent to the target in that clock hour; /
 *   `<hour start>#SOURCE#<source>`: those one source asked for.
 * - `OTP_FAILURES#channel#target[#subject]` / `<day start>`: wrong codes of the target in that UTC
 *   day (`failures`), and of each source (`source <source>`).
 */

const otpRetentionSeconds = 7 * 24 * 3600;

const seconds = (epochMs: number) => Math.floor(epochMs / 1000);

const otpKey = (key: OtpKey) => keys.otp(key.channel, key.target, key.purpose, key.subject);
const attemptsKey = (key: BudgetKey, source: OtpSource) =>
  keys.otpAttempts(key.channel, key.target, key.purpose, key.subject, source);
const targetFailuresKey = (key: BudgetKey, day: FailureDay) =>
  keys.otpFailures(key.channel, key.target, key.subject, day.dayStart);
/** The attribute of the day's item that counts one source's wrong codes. */
const sourceCount = (source: OtpSource) => `source ${source}`;

function storedOtp(item: Record<string, unknown>): StoredOtp {
  return {
    codeHash: String(item.codeHash),
    issuedAt: Number(item.issuedAt),
    expiresAt: Number(item.expiresAt),
    subject: typeof item.subject === 'string' ? item.subject : undefined,
    issuedBy: typeof item.issuedBy === 'string' ? item.issuedBy : undefined,
  };
}

/** The item of a live code. */
const codeItem = (key: OtpKey, otp: StoredOtp) => ({
  ...otpKey(key),
  codeHash: otp.codeHash,
  issuedAt: otp.issuedAt,
  expiresAt: otp.expiresAt,
  subject: otp.subject,
  issuedBy: otp.issuedBy,
  [ttlAttribute]: seconds(otp.expiresAt) + otpRetentionSeconds,
});

/** One more send in an hour's count, under `cap`. */
const countSend = (itemKey: ItemKey, hourStart: number, cap: number) => ({
  Update: {
    TableName: tableName(),
    Key: itemKey,
    UpdateExpression: 'ADD sends :one SET #ttl = if_not_exists(#ttl, :ttl)',
    ConditionExpression: 'attribute_not_exists(sends) OR sends < :cap',
    ExpressionAttributeNames: { '#ttl': ttlAttribute },
    ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':ttl': hourStart + 3600 + 60 },
  },
});

/** One send taken back from an hour's count. */
const uncountSend = (itemKey: ItemKey) => ({
  Update: {
    TableName: tableName(),
    Key: itemKey,
    UpdateExpression: 'ADD sends :minusOne',
    ConditionExpression: 'sends > :zero',
    ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
  },
});

/** In a transaction: the day's wrong codes of a counter are still under `cap`. */
const failuresUnder = (itemKey: ItemKey, cap: number) => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: itemKey,
    ConditionExpression: 'attribute_not_exists(failures) OR failures < :cap',
    ExpressionAttributeValues: { ':cap': cap },
  },
});

/**
 * In a transaction: one more wrong code of the target's day and of the source's share of it (an
 * attribute of the same item, so one write counts both), each under its cap.
 */
const countFailure = (key: BudgetKey, terms: AttemptTerms) => ({
  Update: {
    TableName: tableName(),
    Key: targetFailuresKey(key, terms.day),
    UpdateExpression: 'ADD failures :one, #source :one SET #ttl = if_not_exists(#ttl, :ttl)',
    ConditionExpression:
      '(attribute_not_exists(failures) OR failures < :perTarget) AND (attribute_not_exists(#source) OR #source < :perSource)',
    ExpressionAttributeNames: { '#source': sourceCount(terms.source), '#ttl': ttlAttribute },
    ExpressionAttributeValues: {
      ':one': 1,
      ':perTarget': terms.failuresPerTargetPerDay,
      ':perSource': terms.failuresPerSourcePerDay,
      ':ttl': terms.day.dayStart + 2 * 24 * 3600,
    },
  },
});

/** The writes that settle a right code's attempt (`OtpStore.settle`). */
const settling = (key: BudgetKey, attempt: { source: OtpSource; day: FailureDay }) => [
  { Delete: { TableName: tableName(), Key: attemptsKey(key, attempt.source) } },
  {
    // The attempt was a right code: taken back from the day's wrong codes.
    Update: {
      TableName: tableName(),
      Key: targetFailuresKey(key, attempt.day),
      UpdateExpression: 'ADD failures :minusOne, #source :minusOne',
      ExpressionAttributeNames: { '#source': sourceCount(attempt.source) },
      ExpressionAttributeValues: { ':minusOne': -1 },
    },
  },
];

export const dynamoOtpStore: OtpStore = {
  async issue(key, otp, terms) {
    const outcome = await transactWrite({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: codeItem(key, otp),
            // The cooldown is the asking source's: another source's code does not hold it.
            ConditionExpression:
              'attribute_not_exists(pk) OR issuedAt <= :edge OR attribute_not_exists(issuedBy) OR issuedBy <> :source',
            ExpressionAttributeValues: { ':edge': terms.cooldownEdge, ':source': terms.source },
          },
        },
        countSend(
          keys.otpSourceSends(key.channel, key.target, terms.hourStart, terms.source),
          terms.hourStart,
          terms.sendsPerSourcePerHour,
        ),
        countSend(
          keys.otpSends(key.channel, key.target, terms.hourStart),
          terms.hourStart,
          terms.sendsPerHour,
        ),
        {
          ConditionCheck: {
            TableName: tableName(),
            Key: attemptsKey(key, terms.source),
            ConditionExpression:
              'attribute_not_exists(pk) OR attempts < :max OR windowEndsAt <= :now',
            ExpressionAttributeValues: { ':max': terms.maxAttempts, ':now': terms.now },
          },
        },
        failuresUnder(targetFailuresKey(key, terms.day), terms.failuresPerTargetPerDay),
      ],
    });
    if (outcome.ok) return { issued: true };
    switch (outcome.failedIndex) {
      case 0: {
        // Refusals are rare: one more read makes their Retry-After exact.
        const current = await getItem(otpKey(key));
        return {
          issued: false,
          refusedBy: 'cooldown',
          lastIssuedAt: current === undefined ? undefined : Number(current.issuedAt),
        };
      }
      case 1:
        return { issued: false, refusedBy: 'source_hourly_cap' };
      case 2:
        return { issued: false, refusedBy: 'hourly_cap' };
      case 3: {
        const budget = await getItem(attemptsKey(key, terms.source));
        return {
          issued: false,
          refusedBy: 'attempts',
          windowEndsAt: budget === undefined ? undefined : Number(budget.windowEndsAt),
        };
      }
      default:
        return { issued: false, refusedBy: 'failures' };
    }
  },

  async reserveAttempt(key, terms, targetHit) {
    // The day's counters go in the same transaction as the attempt: a guess is compared only if
    // all of them took it, and a refused one is counted by none of them.
    const dayCounter = countFailure(key, terms);
    const dayEndsAt = (terms.day.dayStart + 24 * 3600) * 1000;
    // The common case first (no budget, or an open one with more than one attempt left); a
    // refusal of the budget's write answers the budget as it was, which tells the next write.
    let budget: BudgetState = { kind: 'fresh' };
    for (let round = 0; round < 4; round++) {
      if (budget.kind === 'spent') {
        // No attempt, but the request is still one of the target's verifications.
        const limited = await countHitAlone(targetHit);
        return limited ?? { allowed: false, windowEndsAt: budget.windowEndsAt };
      }
      const spend = budgetSpend(key, terms, budget);
      const counting = targetHit !== undefined && !targetHit.counted;
      const items = [
        ...(counting ? [countHitWithinLimit(targetHit)] : []),
        spend.write,
        dayCounter,
      ];
      const outcome = await transactWrite({ TransactItems: items });
      if (outcome.ok) {
        if (counting) targetHit.countedWithinLimit();
        return spend.last
          ? { allowed: true, last: true, windowEndsAt: spend.windowEndsAt, day: terms.day }
          : { allowed: true, last: false, day: terms.day };
      }
      const failed = items[outcome.failedIndex];
      if (counting && outcome.failedIndex === 0) {
        return { allowed: false, targetLimited: targetHit.refusedAtLimit() };
      }
      if (failed !== spend.write) {
        // A day's ceiling: refused until the day ends.
        const limited = await countHitAlone(targetHit);
        return limited ?? { allowed: false, windowEndsAt: dayEndsAt };
      }
      budget = budgetState(outcome.failedItem, terms);
    }
    // Still racing: refuse rather than compare a guess that was not counted.
    const limited = await countHitAlone(targetHit);
    return limited ?? { allowed: false, windowEndsAt: terms.windowEndsAt };
  },

  async withdraw(key, codeHash, hourStart, source) {
    // Refused as a whole when a newer code replaced this one: that code's sends stay counted.
    await transactWrite({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: otpKey(key),
            ConditionExpression: 'codeHash = :hash',
            ExpressionAttributeValues: { ':hash': codeHash },
          },
        },
        uncountSend(keys.otpSourceSends(key.channel, key.target, hourStart, source)),
        uncountSend(keys.otpSends(key.channel, key.target, hourStart)),
      ],
    });
  },

  async consumeSettling(key, codeHash, now, attempt) {
    const outcome = await transactWrite({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: otpKey(key),
            ConditionExpression: 'codeHash = :hash AND expiresAt > :now',
            ExpressionAttributeValues: { ':hash': codeHash, ':now': now },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        ...settling(key, attempt),
      ],
    });
    if (outcome.ok) return { outcome: 'consumed' };
    const stored = outcome.failedItem;
    if (typeof stored?.codeHash !== 'string') return { outcome: 'none' };
    // The same digest, so the condition failed on the expiry: digests only, nothing of the code.
    if (stored.codeHash === codeHash) return { outcome: 'expired' };
    return { outcome: 'mismatch', otp: storedOtp(stored) };
  },

  async consume(key, codeHash) {
    const result = await deleteIf({
      Key: otpKey(key),
      ConditionExpression: 'codeHash = :hash',
      ExpressionAttributeValues: { ':hash': codeHash },
      ReturnValues: 'ALL_OLD',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (result.ok) return { outcome: 'consumed', otp: storedOtp(result.attributes ?? {}) };
    if (typeof result.item?.codeHash !== 'string') return { outcome: 'none' };
    return { outcome: 'mismatch', otp: storedOtp(result.item) };
  },

  async restore(key, otp) {
    // Refused when a newer code was issued meanwhile: it is the live one.
    await putIfAbsent(codeItem(key, otp));
  },

  async settle(key, attempt) {
    await transactWrite({ TransactItems: settling(key, attempt) });
  },

  async lastSubject(key) {
    const item = await getItem(otpKey(key));
    return typeof item?.subject === 'string' ? item.subject : undefined;
  },

  async latestPurpose(channel, target, purposes) {
    const found = await Promise.all(
      purposes.map(async (purpose) => ({
        purpose,
        item: await getItem(keys.otp(channel, target, purpose)),
      })),
    );
    let latest: { purpose: (typeof purposes)[number]; issuedAt: number } | undefined;
    for (const { purpose, item } of found) {
      const issuedAt = item === undefined ? undefined : Number(item.issuedAt);
      if (issuedAt !== undefined && (latest === undefined || issuedAt > latest.issuedAt)) {
        latest = { purpose, issuedAt };
      }
    }
    return latest?.purpose;
  },
};

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What a refused budget write found: how the next one must be made. */
type BudgetState =
  /** No budget, or an open window with more than one attempt left. */
  | { kind: 'fresh' }
  /** An open window with exactly one attempt left. */
  | { kind: 'last'; windowEndsAt: number }
  | { kind: 'spent'; windowEndsAt: number }
  /** A window past its end that TTL has not removed yet. */
  | { kind: 'stale'; windowEndsAt: number };

function budgetState(item: Record<string, unknown> | undefined, terms: AttemptTerms): BudgetState {
  if (item === undefined) return { kind: 'fresh' };
  const attempts = Number(item.attempts ?? 0);
  const windowEndsAt = Number(item.windowEndsAt ?? 0);
  if (windowEndsAt <= terms.now) return { kind: 'stale', windowEndsAt };
  if (attempts >= terms.maxAttempts) return { kind: 'spent', windowEndsAt };
  if (attempts === terms.maxAttempts - 1) return { kind: 'last', windowEndsAt };
  return { kind: 'fresh' };
}

/** The budget's write for its state, and what the attempt is when it goes through. */
function budgetSpend(
  key: BudgetKey,
  terms: AttemptTerms,
  budget: Exclude<BudgetState, { kind: 'spent' }>,
): { write: TransactItem; last: boolean; windowEndsAt: number } {
  const Key = attemptsKey(key, terms.source);
  const ttl = seconds(terms.windowEndsAt) + 60;
  const opensLast = terms.maxAttempts <= 1;
  switch (budget.kind) {
    case 'fresh':
      return {
        write: {
          Update: {
            TableName: tableName(),
            Key,
            UpdateExpression:
              'SET attempts = if_not_exists(attempts, :zero) + :one, windowEndsAt = if_not_exists(windowEndsAt, :end), #ttl = if_not_exists(#ttl, :ttl)',
            // An attempt that leaves at least one more (not the budget's last).
            ConditionExpression:
              'attribute_not_exists(pk) OR (attempts < :below AND windowEndsAt > :now)',
            ExpressionAttributeNames: { '#ttl': ttlAttribute },
            ExpressionAttributeValues: {
              ':zero': 0,
              ':one': 1,
              ':end': terms.windowEndsAt,
              ':ttl': ttl,
              ':below': terms.maxAttempts - 1,
              ':now': terms.now,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        last: opensLast,
        windowEndsAt: terms.windowEndsAt,
      };
    case 'last':
      return {
        write: {
          Update: {
            TableName: tableName(),
            Key,
            UpdateExpression: 'SET attempts = attempts + :one',
            ConditionExpression: 'attempts = :lastOne AND windowEndsAt = :end',
            ExpressionAttributeValues: {
              ':one': 1,
              ':lastOne': terms.maxAttempts - 1,
              ':end': budget.windowEndsAt,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        last: true,
        windowEndsAt: budget.windowEndsAt,
      };
    case 'stale':
      // Replaced by a fresh window holding this attempt, unless another verify replaced it first.
      return {
        write: {
          Put: {
            TableName: tableName(),
            Item: { ...Key, attempts: 1, windowEndsAt: terms.windowEndsAt, [ttlAttribute]: ttl },
            ConditionExpression: 'windowEndsAt = :stale',
            ExpressionAttributeValues: { ':stale': budget.windowEndsAt },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        last: opensLast,
        windowEndsAt: terms.windowEndsAt,
      };
  }
}

/**
 * Counts the request's hit on its target's limit alone, when no write of the reservation could:
 * every verification is counted once, whichever way. Answers the refusal when it is over.
 */
async function countHitAlone(
  targetHit: PendingHit | undefined,
): Promise<AttemptReservation | undefined> {
  if (targetHit === undefined || targetHit.counted) return undefined;
  await targetHit.count();
  const decision = targetHit.decision;
  return decision?.allowed === false ? { allowed: false, targetLimited: decision } : undefined;
}
