import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { MfaTicket, SecondFactorStore } from '../domain/accounts/mfa-challenge.js';
import type { SignInClient } from '../domain/accounts/ports.js';
import { deleteIf, getItem, putIf, transactWrite, updateIf } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute, ttlPast } from './table-definition.js';

/**
 * Second factors in the single table:
 * - `USER#<uid>` / `TOTP`: `secret`, `last_step`, `recovery_codes` (a string set of SHA-256
 *   hashes), beside the account, whose `totp_enabled` says one is there;
 * - `USER#<uid>` / `TOTP_ENROLMENT`: `secret`, `expires_at_ms`, until its first code (TTL);
 * - `MFA_TICKET#<sha256 of the ticket>`: the waiting sign-in (TTL). Expiry is checked in code:
 *   TTL deletes lazily, and DynamoDB Local never does.
 */

const hashesOf = (value: unknown): string[] => (value instanceof Set ? [...value].map(String) : []);

export const dynamoSecondFactors: SecondFactorStore = {
  async startEnrolment(userId, secret, expiresAt) {
    await putIf({
      Item: {
        ...keys.totpEnrolment(userId),
        secret,
        expires_at_ms: expiresAt,
        [ttlAttribute]: ttlPast(expiresAt),
      },
    });
  },

  async enrolment(userId) {
    const item = await getItem(keys.totpEnrolment(userId));
    return item === undefined
      ? undefined
      : { secret: String(item.secret), expiresAt: Number(item.expires_at_ms) };
  },

  async enable(userId, factor) {
    const input: TransactWriteCommandInput = {
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.totp(userId),
              secret: factor.secret,
              last_step: factor.lastStep,
              recovery_codes: new Set(factor.recoveryCodeHashes),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: keys.user(userId),
            UpdateExpression: 'SET totp_enabled = :true',
            ConditionExpression:
              'attribute_exists(pk) AND (attribute_not_exists(totp_enabled) OR totp_enabled <> :true)',
            ExpressionAttributeValues: { ':true': true },
          },
        },
        {
          Delete: {
            TableName: tableName(),
            Key: keys.totpEnrolment(userId),
            ConditionExpression: 'secret = :secret',
            ExpressionAttributeValues: { ':secret': factor.secret },
          },
        },
      ],
    };
    return (await transactWrite(input)).ok;
  },

  async factor(userId) {
    const item = await getItem(keys.totp(userId));
    return item === undefined
      ? undefined
      : {
          secret: String(item.secret),
          lastStep: Number(item.last_step),
          recoveryCodeHashes: hashesOf(item.recovery_codes),
        };
  },

  async useStep(userId, step) {
    const result = await updateIf({
      Key: keys.totp(userId),
      UpdateExpression: 'SET last_step = :step',
      ConditionExpression: 'attribute_exists(pk) AND last_step < :step',
      ExpressionAttributeValues: { ':step': step },
    });
    return result.ok;
  },

  async replaceRecoveryCodes(userId, codeHashes) {
    const result = await updateIf({
      Key: keys.totp(userId),
      UpdateExpression: 'SET recovery_codes = :codes',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':codes': new Set(codeHashes) },
    });
    return result.ok;
  },

  async useRecoveryCode(userId, codeHash) {
    const result = await updateIf({
      Key: keys.totp(userId),
      UpdateExpression: 'DELETE recovery_codes :used',
      ConditionExpression: 'contains(recovery_codes, :hash)',
      ExpressionAttributeValues: { ':used': new Set([codeHash]), ':hash': codeHash },
    });
    return result.ok;
  },

  async disable(userId) {
    const outcome = await transactWrite({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: keys.totp(userId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: keys.user(userId),
            UpdateExpression: 'REMOVE totp_enabled',
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ],
    });
    return outcome.ok;
  },

  async putTicket(ticketHash, ticket) {
    await putIf({
      Item: {
        ...keys.mfaTicket(ticketHash),
        user_id: ticket.userId,
        client: ticket.client,
        changes: ticket.changes,
        expires_at_ms: ticket.expiresAt,
        [ttlAttribute]: ttlPast(ticket.expiresAt),
      },
    });
  },

  async ticket(ticketHash) {
    const item = await getItem(keys.mfaTicket(ticketHash));
    if (item === undefined) return undefined;
    return {
      userId: String(item.user_id),
      client: item.client as SignInClient,
      changes: (item.changes ?? {}) as MfaTicket['changes'],
      expiresAt: Number(item.expires_at_ms),
    };
  },

  async takeTicket(ticketHash) {
    return (
      await deleteIf({
        Key: keys.mfaTicket(ticketHash),
        ConditionExpression: 'attribute_exists(pk)',
      })
    ).ok;
  },
};
