import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { AttemptReservation, OtpKey, OtpStore, StoredOtp } from '../domain/otp/engine.js';
import { documentClient } from './dynamodb.js';
import { type ItemKey, keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';
import { transactWrite } from './transactions.js';

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

/** A raw (marshalled) item, as ConditionalCheckFailedException returns it. */
type RawItem = Record<string, AttributeValue> | undefined;
const rawNumber = (item: RawItem, name: string): number | undefined => {
  const value = item?.[name];
  return value !== undefined && 'N' in value && value.N !== undefined ? Number(value.N) : undefined;
};

function storedOtp(item: Record<string, unknown>): StoredOtp {
  return {
    codeHash: String(item.codeHash),
    issuedAt: Number(item.issuedAt),
    expiresAt: Number(item.expiresAt),
    subject: typeof item.subject === 'string' ? item.subject : undefined,
  };
}

async function getItem(key: ItemKey): Promise<Record<string, unknown> | undefined> {
  const result = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  return result.Item;
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

  async reserveAttempt(key, budget) {
    // A stale window (past its end, not yet removed by TTL) is replaced by a fresh one; a retry is
    // needed only when another verify replaced it at the same moment.
    for (let round = 0; round < 3; round++) {
      const spent = await spendInOpenWindow(key, budget);
      if (typeof spent !== 'number') return spent;
      if (await openNewWindow(key, budget, spent)) {
        return { allowed: true, used: 1, windowEndsAt: budget.windowEndsAt };
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

  async consume(key, codeHash) {
    try {
      const result = await documentClient().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: otpKey(key),
          ConditionExpression: 'codeHash = :hash',
          ExpressionAttributeValues: { ':hash': codeHash },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { outcome: 'consumed', otp: storedOtp(result.Attributes ?? {}) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const codeHash = error.Item?.codeHash;
      if (codeHash === undefined || !('S' in codeHash) || codeHash.S === undefined) {
        return { outcome: 'none' };
      }
      return {
        outcome: 'mismatch',
        otp: {
          codeHash: codeHash.S,
          issuedAt: rawNumber(error.Item, 'issuedAt') ?? 0,
          expiresAt: rawNumber(error.Item, 'expiresAt') ?? 0,
        },
      };
    }
  },

  async restore(key, otp) {
    try {
      await documentClient().send(
        new PutCommand({
          TableName: tableName(),
          Item: codeItem(key, otp),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      // A newer code was issued meanwhile: it is the live one.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },

  async burn(key, codeHash) {
    try {
      await documentClient().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: otpKey(key),
          ConditionExpression: 'codeHash = :hash',
          ExpressionAttributeValues: { ':hash': codeHash },
        }),
      );
    } catch (error) {
      // A newer code replaced it meanwhile: that one keeps its own (shared) budget.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  },

  async clearAttempts(key) {
    await documentClient().send(
      new DeleteCommand({ TableName: tableName(), Key: attemptsKey(key) }),
    );
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
 * Spends an attempt in the open window (creating the budget if there is none). Returns the
 * reservation, or the end of a stale window that must be replaced first.
 */
async function spendInOpenWindow(
  key: OtpKey,
  budget: Budget,
): Promise<AttemptReservation | number> {
  try {
    const result = await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: attemptsKey(key),
        UpdateExpression:
          'SET attempts = if_not_exists(attempts, :zero) + :one, windowEndsAt = if_not_exists(windowEndsAt, :end), #ttl = if_not_exists(#ttl, :ttl)',
        ConditionExpression:
          'attribute_not_exists(pk) OR (attempts < :max AND windowEndsAt > :now)',
        ExpressionAttributeNames: { '#ttl': ttlAttribute },
        ExpressionAttributeValues: {
          ':zero': 0,
          ':one': 1,
          ':end': budget.windowEndsAt,
          ':ttl': seconds(budget.windowEndsAt) + 60,
          ':max': budget.maxAttempts,
          ':now': budget.now,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return {
      allowed: true,
      used: Number(result.Attributes?.attempts),
      windowEndsAt: Number(result.Attributes?.windowEndsAt),
    };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const windowEndsAt = rawNumber(error.Item, 'windowEndsAt') ?? 0;
    if (windowEndsAt > budget.now) return { allowed: false, windowEndsAt };
    return windowEndsAt;
  }
}

/** Replaces a stale window (TTL had not removed it yet) with a fresh one holding this attempt. */
async function openNewWindow(key: OtpKey, budget: Budget, staleEnd: number): Promise<boolean> {
  try {
    await documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...attemptsKey(key),
          attempts: 1,
          windowEndsAt: budget.windowEndsAt,
          [ttlAttribute]: seconds(budget.windowEndsAt) + 60,
        },
        ConditionExpression: 'windowEndsAt = :stale',
        ExpressionAttributeValues: { ':stale': staleEnd },
      }),
    );
    return true;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return false;
  }
}
