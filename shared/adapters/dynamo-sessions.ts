import {
  DeleteCommand,
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
import { Refusal } from '../domain/errors.js';
import {
  type AccountUpdate,
  accountUpdateInput,
  activationClauses,
  userFromItem,
} from './dynamo-users.js';
import { counterKeyOf, countHitIn, hitsIn } from './dynamo-window-counter.js';
import { batchGetAll, deleteItems, dynamo, getItem, queryAll, transactWrite } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * Sessions and refresh tokens in the single table:
 * - `USER#<uid>` / `SESSION#<sid>`: created_at, last_used_at (its last refresh), ip_address and
 *   user_agent of the sign-in, in the user's partition, so listing or revoking all of a user's
 *   sessions is one strongly consistent Query (no index lag to outlive). Revoking a session
 *   deletes this item, which every authenticated call reads.
 * - `REFRESH#<sha256>`: one per refresh token ever issued, kept for its 30 days so that a rotated
 *   token presented again is recognised (reuse detection) rather than merely unknown.
 */

const refreshExpiry = (now: number) => epochSeconds(now) + refreshTokenSeconds;

/** The user agent kept per session: enough to recognise a device, bounded in size. */
const maxUserAgentLength = 256;

function signInUpdate(userId: string, changes: SignInChanges, now: number) {
  const update: AccountUpdate =
    changes.activation === undefined
      ? { set: [], remove: [], conditions: [], names: {}, values: {} }
      : activationClauses(changes.activation);
  update.set.push('online_status = :online', 'last_login_at = :at');
  update.conditions.push('attribute_exists(pk)');
  update.values[':online'] = true;
  update.values[':at'] = new Date(now).toISOString();
  if (changes.upgradedPasswordHash !== undefined) {
    update.set.push('password_hash = :upgraded');
    update.values[':upgraded'] = changes.upgradedPasswordHash;
  }
  if (changes.phone !== undefined) {
    // Still the account's phone, and not held back by a password reset meanwhile.
    update.conditions.push('phone = :phone', 'attribute_not_exists(phone_confirmation_required)');
    update.values[':phone'] = changes.phone;
  }
  if (changes.checkedPasswordHash !== undefined) {
    update.conditions.push('password_hash = :checked');
    update.values[':checked'] = changes.checkedPasswordHash;
  }
  return accountUpdateInput(userId, update);
}

export const dynamoSessionRepository: SessionRepository = {
  async start(session: NewSession, changes: SignInChanges) {
    const { sessionId, userId, refreshTokenHash, client, now } = session;
    const expiresAt = refreshExpiry(now);
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.session(userId, sessionId),
            created_at: now,
            last_used_at: now,
            ip_address: client.address,
            user_agent: client.userAgent?.slice(0, maxUserAgentLength),
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
      { Update: { TableName: tableName(), ...signInUpdate(userId, changes, now) } },
    ];
    if (changes.clearThrottle !== undefined) {
      const { email, source } = changes.clearThrottle;
      items.push({ Delete: { TableName: tableName(), Key: keys.loginThrottle(email, source) } });
    }
    const outcome = await transactWrite({ TransactItems: items });
    if (!outcome.ok) {
      // Only the account's condition can fail in practice (ids are 128 random bits): it was
      // deleted, or its email, phone, contest state or password changed between the check and the
      // sign-in.
      throw new Refusal('accountChanged');
    }
  },

  async loadForRefresh(userId, sessionId, tokenHash, hit): Promise<RefreshState> {
    const result = await dynamo().send(
      new TransactGetCommand({
        TransactItems: [
          { Get: { TableName: tableName(), Key: keys.refreshToken(tokenHash) } },
          { Get: { TableName: tableName(), Key: keys.session(userId, sessionId) } },
          { Get: { TableName: tableName(), Key: keys.user(userId) } },
          ...(hit === undefined
            ? []
            : [{ Get: { TableName: tableName(), Key: counterKeyOf(hit) } }]),
        ],
      }),
    );
    const [token, session, user, counter] = (result.Responses ?? []).map(
      (response) => response.Item,
    );
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
      hitsBefore: hit === undefined ? undefined : hitsIn(counter),
    };
  },

  async rotate({ userId, sessionId, tokenHash, successorHash, now, hit }) {
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
            UpdateExpression: 'SET #ttl = :ttl, last_used_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#ttl': ttlAttribute },
            ExpressionAttributeValues: { ':ttl': expiresAt, ':now': now },
          },
        },
        // The request's own rate-limit hit, when it rides along: no write of its own.
        ...(hit === undefined ? [] : [countHitIn(hit.pending, hit.before)]),
      ],
    });
    if (outcome.ok) return 'rotated';
    return (['already_rotated', 'already_rotated', 'session_gone', 'hit_moved'] as const)[
      outcome.failedIndex
    ]!;
  },

  async isLive(sessionId, userId) {
    // Strongly consistent: a logout that just returned must already count.
    const item = await getItem(keys.session(userId, sessionId), { projection: 'pk' });
    return item !== undefined;
  },

  async sessionWithUser(userId, sessionId) {
    const session = keys.session(userId, sessionId);
    // Strongly consistent: a logout that just returned must already count.
    const items = await batchGetAll([session, keys.user(userId)], { consistent: true });
    const user = items.find((item) => item.sk !== session.sk);
    return {
      sessionLive: items.some((item) => item.sk === session.sk),
      user: user === undefined ? undefined : userFromItem(user),
    };
  },

  async list(userId, now) {
    const { pk, skPrefix } = keys.userSessions(userId);
    const items = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ConsistentRead: true,
    });
    return (
      items
        // TTL deletes lazily: a session past its refresh lifetime is over.
        .filter((item) => Number(item[ttlAttribute]) > epochSeconds(now))
        .map((item) => ({
          id: String(item.sk).slice(skPrefix.length),
          createdAt: Number(item.created_at),
          lastUsedAt: Number(item.last_used_at ?? item.created_at),
          ipAddress: typeof item.ip_address === 'string' ? item.ip_address : null,
          userAgent: typeof item.user_agent === 'string' ? item.user_agent : null,
        }))
        .sort((a, b) => b.createdAt - a.createdAt)
    );
  },

  async revoke(userId, sessionId) {
    const result = await dynamo().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keys.session(userId, sessionId),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return result.Attributes !== undefined;
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
    await deleteItems(found.filter((key) => key.sk !== keep));
  },
};
