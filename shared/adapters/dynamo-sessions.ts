import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type {
  NewSession,
  RefreshState,
  RefreshTarget,
  RefreshWrite,
  SessionRepository,
  SignInChanges,
} from '../domain/accounts/ports.js';
import { refreshTokenSeconds } from '../domain/accounts/refresh-tokens.js';
import { epochSeconds } from '../domain/clock.js';
import { Refusal } from '../domain/errors.js';
import {
  type AccountUpdate,
  accountStillReadsAs,
  accountUpdateInput,
  activationClauses,
  publicUserFromItem,
  publicUserItem,
  userFromItem,
} from './dynamo-users.js';
import { counterKeyOf, countHitIn, hitsIn } from './dynamo-window-counter.js';
import {
  batchGetAll,
  deleteIf,
  deleteItems,
  getItem,
  queryAll,
  queryPage,
  type TransactionOutcome,
  transactGet,
  transactWrite,
} from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/**
 * Sessions and refresh tokens in the single table:
 * - `USER#<uid>` / `SESSION#<sid>`: created_at, last_used_at (its last refresh), ip_address and
 *   user_agent of the sign-in, in the user's partition, so listing or revoking all of a user's
 *   sessions is one strongly consistent Query (no index lag to outlive). Revoking a session
 *   deletes this item, which every authenticated call reads.
 * - `REFRESH#<sha256>`: one per refresh token ever issued, naming its user and session (the token
 *   itself is opaque), kept for its 30 days so that a rotated token presented again is recognised
 *   (reuse detection) rather than merely unknown. While a token is current its item also holds
 *   `holder`, a copy of what answers show of the account (`publicUserItem`): a refresh reads it
 *   with the token, one read, and its write checks that the account still reads so
 *   (`accountStillReadsAs`). Rotation removes the copy from the used token's item and gives it to
 *   its successor's, so one copy per session is current; a rotated item keeps its `rotated_at`
 *   and the `access_kid` that signed its successor's access token, nothing secret.
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

/** A refresh token's item: whose it is and, while it is current, its copy of the account. */
const refreshTokenItem = (
  tokenHash: string,
  {
    userId,
    sessionId,
    holder,
    now,
  }: Pick<RefreshTarget, 'userId' | 'sessionId' | 'holder'> & { now: number },
  expiresAt: number,
) => ({
  ...keys.refreshToken(tokenHash),
  user_id: userId,
  session_id: sessionId,
  issued_at: now,
  holder: publicUserItem(holder),
  [ttlAttribute]: expiresAt,
});

/** The account copy a token's item holds (items written before there was one hold none). */
const holderIn = (item: Record<string, unknown> | undefined) =>
  item?.holder !== null && typeof item?.holder === 'object'
    ? publicUserFromItem(item.holder as Record<string, unknown>)
    : undefined;

/**
 * What a refresh's transaction answered: `reasons` name its leading items in order; the account
 * check follows them (the account as it is comes back when it failed), then the hit, if any.
 */
function refreshWriteOf(
  outcome: TransactionOutcome,
  reasons: ('already_rotated' | 'session_gone')[],
): RefreshWrite {
  if (outcome.ok) return { done: true };
  const reason = reasons[outcome.failedIndex];
  if (reason !== undefined) return { done: false, reason };
  if (outcome.failedIndex === reasons.length) {
    const { failedItem } = outcome;
    return {
      done: false,
      reason: 'holder_changed',
      holder: failedItem === undefined ? undefined : publicUserFromItem(failedItem),
    };
  }
  return { done: false, reason: 'hit_moved' };
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
          Item: refreshTokenItem(refreshTokenHash, session, expiresAt),
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

  async loadForRefresh({ tokenHash, successorHash, hit, userId }): Promise<RefreshState> {
    const extra = [
      ...(hit === undefined ? [] : [counterKeyOf(hit)]),
      ...(userId === undefined ? [] : [keys.user(userId)]),
    ];
    const [token, successor, ...rest] = await transactGet([
      keys.refreshToken(tokenHash),
      keys.refreshToken(successorHash),
      ...extra,
    ]);
    const counter = hit === undefined ? undefined : rest.shift();
    const user = rest.shift();
    return {
      token:
        token === undefined
          ? undefined
          : {
              userId: String(token.user_id),
              sessionId: String(token.session_id),
              expiresAt: Number(token[ttlAttribute]) * 1000,
              rotatedAt: token.rotated_at === undefined ? undefined : Number(token.rotated_at),
              accessKid: typeof token.access_kid === 'string' ? token.access_kid : undefined,
              holder: holderIn(token),
            },
      successor: successor === undefined ? undefined : { holder: holderIn(successor) },
      user: user === undefined ? undefined : publicUserFromItem(user),
      hitsBefore: hit === undefined ? undefined : hitsIn(counter),
    };
  },

  async rotate({ tokenHash, successorHash, accessKid, now, ...target }) {
    const { userId, sessionId } = target;
    const expiresAt = refreshExpiry(now);
    const outcome = await transactWrite({
      TransactItems: [
        {
          // Used: it keeps what reuse detection and the grace need, and gives up its copy.
          Update: {
            TableName: tableName(),
            Key: keys.refreshToken(tokenHash),
            UpdateExpression: 'SET rotated_at = :now, access_kid = :kid REMOVE holder',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(rotated_at)',
            ExpressionAttributeValues: { ':now': now, ':kid': accessKid },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: refreshTokenItem(successorHash, { ...target, now }, expiresAt),
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
        accountStillReadsAs(target.holder),
        // The request's own rate-limit hit, when it rides along: no write of its own.
        ...(target.hit === undefined ? [] : [countHitIn(target.hit.pending, target.hit.before)]),
      ],
    });
    return refreshWriteOf(outcome, ['already_rotated', 'already_rotated', 'session_gone']);
  },

  async confirm(target) {
    const outcome = await transactWrite({
      TransactItems: [
        {
          ConditionCheck: {
            TableName: tableName(),
            Key: keys.session(target.userId, target.sessionId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        accountStillReadsAs(target.holder),
        ...(target.hit === undefined ? [] : [countHitIn(target.hit.pending, target.hit.before)]),
      ],
    });
    return refreshWriteOf(outcome, ['session_gone']);
  },

  async holderOf(userId) {
    const item = await getItem(keys.user(userId));
    return item === undefined ? undefined : publicUserFromItem(item);
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

  async list(userId, now, window, request) {
    const { pk, skPrefix } = keys.userSessions(userId);
    // TTL deletes lazily: a session past its refresh lifetime is over.
    const conditions = ['#expires > :now'];
    const values: Record<string, unknown> = {
      ':pk': pk,
      ':prefix': skPrefix,
      ':now': epochSeconds(now),
    };
    if (window.createdAfter !== undefined) {
      conditions.push('created_at > :after');
      values[':after'] = window.createdAfter;
    }
    if (window.createdBefore !== undefined) {
      conditions.push('created_at < :before');
      values[':before'] = window.createdBefore;
    }
    const page = await queryPage(
      {
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: conditions.join(' AND '),
        ExpressionAttributeNames: { '#expires': ttlAttribute },
        ExpressionAttributeValues: values,
        ConsistentRead: true,
      },
      request,
      { pk },
    );
    return {
      ...page,
      items: page.items.map((item) => ({
        id: String(item.sk).slice(skPrefix.length),
        createdAt: Number(item.created_at),
        lastUsedAt: Number(item.last_used_at ?? item.created_at),
        ipAddress: typeof item.ip_address === 'string' ? item.ip_address : null,
        userAgent: typeof item.user_agent === 'string' ? item.user_agent : null,
      })),
    };
  },

  async revoke(userId, sessionId) {
    const result = await deleteIf({
      Key: keys.session(userId, sessionId),
      ReturnValues: 'ALL_OLD',
    });
    return result.ok && result.attributes !== undefined;
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
