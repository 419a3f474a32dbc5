import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  TransactGetCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type {
  NewSession,
  RefreshState,
  SessionRepository,
  SignInChanges,
} from '../domain/accounts/ports.js';
import { refreshTokenSeconds } from '../domain/accounts/refresh-tokens.js';
import { epochSeconds } from '../domain/clock.js';
import { ServiceError } from '../domain/errors.js';
import { documentClient, queryAll } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';
import { transactWrite } from './transactions.js';
import { userFromItem } from './user-repository.js';

/**
 * Sessions and refresh tokens in the single table:
 * - `USER#<uid>` / `SESSION#<sid>`: created_at, in the user's partition, so revoking all of a
 *   user's sessions is one strongly consistent Query (no index lag to outlive). Revoking a session
 *   deletes this item, which every authenticated call reads.
 * - `REFRESH#<sha256>`: one per refresh token ever issued, kept for its 30 days so that a rotated
 *   token presented again is recognised (reuse detection) rather than merely unknown.
 */

const refreshExpiry = (now: number) => epochSeconds(now) + refreshTokenSeconds;

function signInUpdate(userId: string, changes: SignInChanges, now: number) {
  const set = ['online_status = :true', 'last_login_at = :now'];
  const conditions = ['attribute_exists(pk)'];
  const values: Record<string, unknown> = { ':true': true, ':now': new Date(now).toISOString() };
  if (changes.clearFailures) {
    set.push('failed_logins = :zero', 'locked_until = :zero');
    values[':zero'] = 0;
  }
  if (changes.upgradedPasswordHash !== undefined) {
    set.push('password_hash = :hash');
    values[':hash'] = changes.upgradedPasswordHash;
  }
  if (changes.verifiedEmail !== undefined) {
    set.push('email_verified = :true');
    conditions.push('email = :email');
    values[':email'] = changes.verifiedEmail;
  }
  if (changes.verifiedPhone !== undefined) {
    set.push('phone_verified = :true');
    conditions.push('phone = :phone');
    values[':phone'] = changes.verifiedPhone;
  }
  if (changes.checkedPasswordHash !== undefined) {
    conditions.push('password_hash = :checked');
    values[':checked'] = changes.checkedPasswordHash;
  }
  return {
    TableName: tableName(),
    Key: keys.user(userId),
    UpdateExpression: `SET ${set.join(', ')}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeValues: values,
  };
}

async function deleteAll(sessionKeys: { pk: string; sk: string }[]): Promise<void> {
  for (let start = 0; start < sessionKeys.length; start += 25) {
    let requests = sessionKeys
      .slice(start, start + 25)
      .map((key) => ({ DeleteRequest: { Key: key } }));
    // BatchWrite may hand back throttled items; retry those until none are left.
    while (requests.length > 0) {
      const result = await documentClient().send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }),
      );
      requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  }
}

export const dynamoSessionRepository: SessionRepository = {
  async start(session: NewSession, changes: SignInChanges) {
    const { sessionId, userId, refreshTokenHash, now } = session;
    const expiresAt = refreshExpiry(now);
    const input: TransactWriteCommandInput = {
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.session(userId, sessionId),
              created_at: now,
              [ttlAttribute]: expiresAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.refreshToken(refreshTokenHash),
              user_id: userId,
              session_id: sessionId,
              issued_at: now,
              [ttlAttribute]: expiresAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Update: signInUpdate(userId, changes, now) },
      ],
    };
    const outcome = await transactWrite(input);
    if (!outcome.ok) {
      // Only the account's condition can fail in practice (ids are 128 random bits): it was
      // deleted, or its email, phone or password changed between the check and the sign-in.
      throw new ServiceError('conflict', 'The account changed during sign-in; try again');
    }
  },

  async loadForRefresh(userId, sessionId, tokenHash): Promise<RefreshState> {
    const result = await documentClient().send(
      new TransactGetCommand({
        TransactItems: [
          { Get: { TableName: tableName(), Key: keys.refreshToken(tokenHash) } },
          { Get: { TableName: tableName(), Key: keys.session(userId, sessionId) } },
          { Get: { TableName: tableName(), Key: keys.user(userId) } },
        ],
      }),
    );
    const [token, session, user] = (result.Responses ?? []).map((response) => response.Item);
    // The ids come from the presented token: the stored token must agree with them.
    const tokenMatches =
      token !== undefined && token.user_id === userId && token.session_id === sessionId;
    return {
      token: tokenMatches
        ? {
            expiresAt: Number(token[ttlAttribute]) * 1000,
            rotatedAt: token.rotated_at === undefined ? undefined : Number(token.rotated_at),
          }
        : undefined,
      sessionLive: session !== undefined,
      user: user === undefined ? undefined : userFromItem(user),
    };
  },

  async rotate({ userId, sessionId, tokenHash, successorHash, now }) {
    const expiresAt = refreshExpiry(now);
    const outcome = await transactWrite({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: keys.refreshToken(tokenHash),
            UpdateExpression: 'SET rotated_at = :now',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(rotated_at)',
            ExpressionAttributeValues: { ':now': now },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.refreshToken(successorHash),
              user_id: userId,
              session_id: sessionId,
              issued_at: now,
              [ttlAttribute]: expiresAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          // The session lives as long as its newest refresh token.
          Update: {
            TableName: tableName(),
            Key: keys.session(userId, sessionId),
            UpdateExpression: 'SET #ttl = :ttl, last_refreshed_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#ttl': ttlAttribute },
            ExpressionAttributeValues: { ':ttl': expiresAt, ':now': now },
          },
        },
      ],
    });
    if (outcome.ok) return 'rotated';
    return outcome.failedIndex === 2 ? 'session_gone' : 'already_rotated';
  },

  async isLive(sessionId, userId) {
    // Strongly consistent: a logout that just returned must already count.
    const result = await documentClient().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.session(userId, sessionId),
        ProjectionExpression: 'pk',
        ConsistentRead: true,
      }),
    );
    return result.Item !== undefined;
  },

  async revoke(userId, sessionId) {
    await documentClient().send(
      new DeleteCommand({ TableName: tableName(), Key: keys.session(userId, sessionId) }),
    );
  },

  async revokeAll(userId, keepSessionId) {
    const { pk, skPrefix } = keys.userSessions(userId);
    const found = (
      await queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
      })
    ).map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
    const keep = keepSessionId === undefined ? undefined : keys.session(userId, keepSessionId).sk;
    await deleteAll(found.filter((key) => key.sk !== keep));
  },
};
