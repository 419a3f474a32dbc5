import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { AttemptReservation, OtpKey, OtpStore, StoredOtp } from '../domain/otp/engine.js';
import { countHitWithinLimit } from './dynamo-window-counter.js';
import {
  deleteIf,
  dynamo,
  getItem,
  putIf,
  putIfAbsent,
  transactWrite,
  updateIf,
} from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * Codes, attempt budgets and send counters as items of the single table. Every rule of the engine
 * is a condition of one write, never a read followed by a write.
 *
 * - `OTP#channel#target#purpose[#subject]`: the live code's digest, issuedAt, expiresAt (epoch ms)
 *   and the subject it proves the target for, if any; `#subject` ends the key of a purpose whose
 *   codes are their subject's alone (generic). Kept a week past expiry (TTL) so resend can tell
 *   which purpose was pending and for whom; an expired code never verifies, as expiry is checked
 *   in code.
 * - `OTP_ATTEMPTS#channel#target#purpose[#subject]`: attempts spent and the end of their window.
 * - `OTP_SENDS#channel#target` / hour start: codes sent to the target in that clock hour.
 */

const otpRetentionSeconds = 7 * 24 * 3600;

const seconds = (epochMs: number) => Math.floor(epochMs / 1000);

const otpKey = (key: OtpKey) => keys.otp(key.channel, key.target, key.purpose, key.subject);
const attemptsKey = (key: OtpKey) =>
  keys.otpAttempts(key.channel, key.target, key.purpose, key.subject);

function storedOtp(item: Record<string, unknown>): StoredOtp {
  return {
    codeHash: String(item.codeHash),
    issuedAt: Number(item.issuedAt),
    expiresAt: Number(item.expiresAt),
    subject: typeof item.subject === 'string' ? item.subject : undefined,
  };
}

/** The item of a live code. */
const codeItem = (key: OtpKey, otp: StoredOtp) => ({
  ...otpKey(key),
  codeHash: otp.codeHash,
  issuedAt: otp.issuedAt,
  expiresAt: otp.expiresAt,
  subject: otp.subject,
  [ttlAttribute]: seconds(otp.expiresAt) + otpRetentionSeconds,
});

export const dynamoOtpStore: OtpStore = {
  async issue(key, otp, limits) {
    const outcome = await transactWrite({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: codeItem(key, otp),
            ConditionExpression: 'attribute_not_exists(pk) OR issuedAt <= :edge',
            ExpressionAttributeValues: { ':edge': limits.cooldownEdge },
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: keys.otpSends(key.channel, key.target, limits.hourStart),
            UpdateExpression: 'ADD sends :one SET #ttl = if_not_exists(#ttl, :ttl)',
            ConditionExpression: 'attribute_not_exists(sends) OR sends < :cap',
            ExpressionAttributeNames: { '#ttl': ttlAttribute },
            ExpressionAttributeValues: {
              ':one': 1,
              ':cap': limits.sendsPerHour,
              ':ttl': limits.hourStart + 3600 + 60,
            },
          },
        },
        {
          ConditionCheck: {
            TableName: tableName(),
            Key: attemptsKey(key),
            ConditionExpression:
              'attribute_not_exists(pk) OR attempts < :max OR windowEndsAt <= :now',
            ExpressionAttributeValues: { ':max': limits.maxAttempts, ':now': limits.now },
          },
        },
      ],
    });
    if (outcome.ok) return { issued: true };
    // Refusals are rare: one more read makes their Retry-After exact.
    if (outcome.failedIndex === 0) {
      const current = await getItem(otpKey(key));
      return {
        issued: false,
        refusedBy: 'cooldown',
        lastIssuedAt: current === undefined ? undefined : Number(current.issuedAt),
      };
    }
    if (outcome.failedIndex === 1) return { issued: false, refusedBy: 'hourly_cap' };
    const budget = await getItem(attemptsKey(key));
    return {
      issued: false,
      refusedBy: 'attempts',
      windowEndsAt: budget === undefined ? undefined : Number(budget.windowEndsAt),
    };
  },

  async reserveAttempt(key, budget, targetHit) {
    if (targetHit !== undefined) {
      // The common case in one transaction: the target's hit under its limit, and an attempt
      // that is not the budget's last in an open window (or the first of a new budget).
      const outcome =
        budget.maxAttempts > 1
          ? await transactWrite({
              TransactItems: [countHitWithinLimit(targetHit), spendBeforeLast(key, budget)],
            })
          : undefined;
      if (outcome?.ok) {
        targetHit.countedWithinLimit();
        return { allowed: true, last: false };
      }
      if (outcome?.failedIndex === 0) {
        return { allowed: false, targetLimited: targetHit.refusedAtLimit() };
      }
      // The budget's last attempt, a spent budget or a stale window: the hit counted apart.
      await targetHit.count();
      const decision = targetHit.decision;
      if (decision?.allowed === false) return { allowed: false, targetLimited: decision };
    }
    // A stale window (past its end, not yet removed by TTL) is replaced by a fresh one; a retry is
    // needed only when another verify replaced it at the same moment.
    for (let round = 0; round < 3; round++) {
      const spent = await spendInOpenWindow(key, budget);
      if (typeof spent !== 'number') return spent;
      if (await openNewWindow(key, budget, spent)) {
        return budget.maxAttempts > 1
          ? { allowed: true, last: false }
          : { allowed: true, last: true, windowEndsAt: budget.windowEndsAt };
      }
    }
    // Still racing: refuse rather than compare a guess that was not counted.
    return { allowed: false, windowEndsAt: budget.windowEndsAt };
  },

  async withdraw(key, codeHash, hourStart) {
    // Refused as a whole when a newer code replaced this one: that code's send stays counted.
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
        {
          Update: {
            TableName: tableName(),
            Key: keys.otpSends(key.channel, key.target, hourStart),
            UpdateExpression: 'ADD sends :minusOne',
            ConditionExpression: 'sends > :zero',
            ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
          },
        },
      ],
    });
  },

  async consumeClearing(key, codeHash, now) {
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
        { Delete: { TableName: tableName(), Key: attemptsKey(key) } },
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

  async burn(key, codeHash) {
    // Refused when a newer code replaced it meanwhile: that one keeps its own (shared) budget.
    await deleteIf({
      Key: otpKey(key),
      ConditionExpression: 'codeHash = :hash',
      ExpressionAttributeValues: { ':hash': codeHash },
    });
  },

  async clearAttempts(key) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: attemptsKey(key) }));
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

interface Budget {
  maxAttempts: number;
  now: number;
  windowEndsAt: number;
}

/**
 * One more attempt in the budget's open window, or the first of a new budget, on the condition
 * that fewer than `below` attempts are spent: the write shared by both ways of reserving.
 */
const spend = (key: OtpKey, budget: Budget, below: number) => ({
  Key: attemptsKey(key),
  UpdateExpression:
    'SET attempts = if_not_exists(attempts, :zero) + :one, windowEndsAt = if_not_exists(windowEndsAt, :end), #ttl = if_not_exists(#ttl, :ttl)',
  ConditionExpression: 'attribute_not_exists(pk) OR (attempts < :below AND windowEndsAt > :now)',
  ExpressionAttributeNames: { '#ttl': ttlAttribute },
  ExpressionAttributeValues: {
    ':zero': 0,
    ':one': 1,
    ':end': budget.windowEndsAt,
    ':ttl': seconds(budget.windowEndsAt) + 60,
    ':below': below,
    ':now': budget.now,
  },
});

/** In a transaction: an attempt that leaves at least one more (not the budget's last). */
const spendBeforeLast = (key: OtpKey, budget: Budget) => ({
  Update: { TableName: tableName(), ...spend(key, budget, budget.maxAttempts - 1) },
});

/**
 * Spends an attempt in the open window (creating the budget if there is none). Returns the
 * reservation, or the end of a stale window that must be replaced first.
 */
async function spendInOpenWindow(
  key: OtpKey,
  budget: Budget,
): Promise<AttemptReservation | number> {
  const result = await updateIf({
    ...spend(key, budget, budget.maxAttempts),
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  if (!result.ok) {
    const windowEndsAt = Number(result.item?.windowEndsAt ?? 0);
    if (windowEndsAt > budget.now) return { allowed: false, windowEndsAt };
    return windowEndsAt;
  }
  const used = Number(result.attributes?.attempts);
  return used >= budget.maxAttempts
    ? { allowed: true, last: true, windowEndsAt: Number(result.attributes?.windowEndsAt) }
    : { allowed: true, last: false };
}

/** Replaces a stale window (TTL had not removed it yet) with a fresh one holding this attempt. */
async function openNewWindow(key: OtpKey, budget: Budget, staleEnd: number): Promise<boolean> {
  const result = await putIf({
    Item: {
      ...attemptsKey(key),
      attempts: 1,
      windowEndsAt: budget.windowEndsAt,
      [ttlAttribute]: seconds(budget.windowEndsAt) + 60,
    },
    ConditionExpression: 'windowEndsAt = :stale',
    ExpressionAttributeValues: { ':stale': staleEnd },
  });
  return result.ok;
}
