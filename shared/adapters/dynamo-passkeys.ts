import { tableName } from '../config.js';
import type { PasskeyStore, StoredPasskey } from '../domain/accounts/passkeys.js';
import { deleteIf, getItem, putIf, queryAll, transactWrite, updateIf } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute, ttlPast } from './table-definition.js';

/**
 * Passkeys in the single table, each as two items written and removed together: `PASSKEY#<id>`
 * (what a sign-in finds by the credential id the browser sends) and `USER#<uid>` /
 * `PASSKEY#<id>` (the account's list, one Query of its partition; at most 10 per account). The
 * signature counter and last use live on the first. Ceremonies: `PASSKEY_CHALLENGE#<challenge>`
 * (TTL, and checked in code: DynamoDB Local never deletes).
 */

const fields = (passkey: StoredPasskey) => ({
  credential_id: passkey.id,
  user_id: passkey.userId,
  public_key: passkey.publicKey,
  counter: passkey.counter,
  transports: passkey.transports,
  device_type: passkey.deviceType,
  backed_up: passkey.backedUp,
  created_at_ms: passkey.createdAt,
});

function passkeyOf(item: Record<string, unknown>): StoredPasskey {
  return {
    id: String(item.credential_id),
    userId: String(item.user_id),
    publicKey: new Uint8Array(item.public_key as Uint8Array),
    counter: Number(item.counter ?? 0),
    transports: Array.isArray(item.transports) ? item.transports.map(String) : [],
    deviceType: String(item.device_type),
    backedUp: item.backed_up === true,
    createdAt: Number(item.created_at_ms),
    lastUsedAt: item.last_used_at_ms === undefined ? undefined : Number(item.last_used_at_ms),
  };
}

export const dynamoPasskeys: PasskeyStore = {
  async putChallenge(challenge, state) {
    await putIf({
      Item: {
        ...keys.passkeyChallenge(challenge),
        kind: state.kind,
        ...(state.userId === undefined ? {} : { user_id: state.userId }),
        expires_at_ms: state.expiresAt,
        [ttlAttribute]: ttlPast(state.expiresAt),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  },

  async takeChallenge(challenge) {
    const taken = await deleteIf({
      Key: keys.passkeyChallenge(challenge),
      ConditionExpression: 'attribute_exists(pk)',
      ReturnValues: 'ALL_OLD',
    });
    const item = taken.ok ? taken.attributes : undefined;
    if (item === undefined) return undefined;
    return {
      kind: item.kind === 'registration' ? 'registration' : 'authentication',
      userId: typeof item.user_id === 'string' ? item.user_id : undefined,
      expiresAt: Number(item.expires_at_ms),
    };
  },

  async add(passkey) {
    const outcome = await transactWrite({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.passkey(passkey.id), ...fields(passkey) },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.userPasskey(passkey.userId, passkey.id), ...fields(passkey) },
          },
        },
      ],
    });
    return outcome.ok;
  },

  async byId(credentialId) {
    const item = await getItem(keys.passkey(credentialId));
    return item === undefined ? undefined : passkeyOf(item);
  },

  async list(userId) {
    const { pk, skPrefix } = keys.userPasskeys(userId);
    const items = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ConsistentRead: true,
    });
    return items.map(passkeyOf);
  },

  async recordUse(passkey, use) {
    const result = await updateIf({
      Key: keys.passkey(passkey.id),
      UpdateExpression: 'SET #counter = :new, backed_up = :backedUp, last_used_at_ms = :at',
      ConditionExpression: 'attribute_exists(pk) AND #counter = :old',
      ExpressionAttributeNames: { '#counter': 'counter' },
      ExpressionAttributeValues: {
        ':new': use.counter,
        ':old': passkey.counter,
        ':backedUp': use.backedUp,
        ':at': use.at,
      },
    });
    return result.ok;
  },

  async remove(userId, credentialId) {
    const outcome = await transactWrite({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: keys.passkey(credentialId),
            ConditionExpression: 'user_id = :user',
            ExpressionAttributeValues: { ':user': userId },
          },
        },
        {
          Delete: {
            TableName: tableName(),
            Key: keys.userPasskey(userId, credentialId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ],
    });
    return outcome.ok;
  },
};
