import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import type { ProfileChanges, UserRepository } from '../domain/accounts/ports.js';
import { newId, type User } from '../domain/accounts/user.js';
import { systemClock } from '../domain/clock.js';
import { ServiceError } from '../domain/errors.js';
import { documentClient } from './dynamodb.js';
import { keys } from './keys.js';
import { transactWrite } from './transactions.js';

/**
 * Accounts in the single table:
 * - `USER#<uid>` / `PROFILE`: the account (snake_case attributes; no phone attribute when none);
 * - `EMAIL#<email>` and `PHONE#<e164>`: uniqueness guards holding the owner's `user_id`. They are
 *   written in the same transaction as the account with `attribute_not_exists(pk)`, so a second
 *   claim on an email or phone fails inside DynamoDB rather than in a read-then-write race.
 */

export function userFromItem(item: Record<string, unknown>): User {
  return {
    id: String(item.user_id),
    name: String(item.name),
    email: String(item.email),
    phone: typeof item.phone === 'string' ? item.phone : null,
    gender: typeof item.gender === 'string' ? item.gender : null,
    onlineStatus: item.online_status === true,
    emailVerified: item.email_verified === true,
    phoneVerified: item.phone_verified === true,
    passwordHash: String(item.password_hash),
    createdAt: String(item.created_at),
    failedLogins: Number(item.failed_logins ?? 0),
    lockedUntil: Number(item.locked_until ?? 0),
  };
}

function itemFromUser(user: User): Record<string, unknown> {
  return {
    ...keys.user(user.id),
    user_id: user.id,
    name: user.name,
    email: user.email,
    phone: user.phone ?? undefined,
    gender: user.gender ?? undefined,
    online_status: user.onlineStatus,
    email_verified: user.emailVerified,
    phone_verified: user.phoneVerified,
    password_hash: user.passwordHash,
    created_at: user.createdAt,
    failed_logins: user.failedLogins,
    locked_until: user.lockedUntil,
  };
}

const guardPut = (key: { pk: string; sk: string }, userId: string) => ({
  Put: {
    TableName: tableName(),
    Item: { ...key, user_id: userId },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

const guardDelete = (key: { pk: string; sk: string }, userId: string) => ({
  Delete: {
    TableName: tableName(),
    Key: key,
    ConditionExpression: 'user_id = :uid',
    ExpressionAttributeValues: { ':uid': userId },
  },
});

async function getItem(key: { pk: string; sk: string }) {
  const result = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  return result.Item;
}

/** Runs a conditional update; false when its condition did not hold. */
async function conditionalUpdate(input: ConstructorParameters<typeof UpdateCommand>[0]) {
  try {
    await documentClient().send(new UpdateCommand(input));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Applies name, gender and online status only: one UpdateItem that returns the new account. */
async function updateInPlace(userId: string, changes: ProfileChanges): Promise<User> {
  const { set, names, values } = simpleAssignments(changes);
  try {
    const result = await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.user(userId),
        UpdateExpression: `SET ${set.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return userFromItem(result.Attributes ?? {});
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      throw new ServiceError('invalid_token', 'The account no longer exists', [], { cause: error });
    }
    throw error;
  }
}

function simpleAssignments(changes: ProfileChanges) {
  const set = ['updated_at = :now'];
  // `name` is a DynamoDB reserved word; an unused alias is an error, so add it only when needed.
  let names: Record<string, string> | undefined;
  const values: Record<string, unknown> = { ':now': new Date(systemClock.now()).toISOString() };
  if (changes.name !== undefined) {
    names = { '#name': 'name' };
    set.push('#name = :name');
    values[':name'] = changes.name;
  }
  if (changes.gender !== undefined) {
    set.push('gender = :gender');
    values[':gender'] = changes.gender;
  }
  if (changes.onlineStatus !== undefined) {
    set.push('online_status = :online');
    values[':online'] = changes.onlineStatus;
  }
  return { set, names, values };
}

export const dynamoUserRepository: UserRepository = {
  async create(user) {
    const items: TransactWriteCommandInput['TransactItems'] = [
      {
        Put: {
          TableName: tableName(),
          Item: itemFromUser(user),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      // A taken email's guard comes back with the failure: its holder, without a read.
      {
        Put: {
          ...guardPut(keys.emailGuard(user.email), user.id).Put,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ];
    if (user.phone !== null) items.push(guardPut(keys.phoneGuard(user.phone), user.id));
    const outcome = await transactWrite({ TransactItems: items });
    if (outcome.ok) return { outcome: 'created' };
    if (outcome.failedIndex === 2) return { outcome: 'phone_taken' };
    const holderId = outcome.failedItem?.user_id?.S;
    if (outcome.failedIndex !== 1 || holderId === undefined) {
      // The account item's own condition cannot fail (a fresh random id), and DynamoDB returns
      // the guard it was asked for: anything else is a bug, not an answer.
      throw new Error(`account creation refused by item ${outcome.failedIndex} without a holder`);
    }
    return { outcome: 'email_taken', holderId };
  },

  async get(userId) {
    const item = await getItem(keys.user(userId));
    return item === undefined ? undefined : userFromItem(item);
  },

  async findByEmail(email) {
    const guard = await getItem(keys.emailGuard(email));
    if (guard === undefined) return undefined;
    const item = await getItem(keys.user(String(guard.user_id)));
    return item === undefined ? undefined : userFromItem(item);
  },

  async emailStanding(email) {
    const read = (key: { pk: string; sk: string }, attribute: string) =>
      documentClient().send(
        new GetCommand({
          TableName: tableName(),
          Key: key,
          ProjectionExpression: attribute,
          ConsistentRead: true,
        }),
      );
    const guard = await read(keys.emailGuard(email), 'user_id');
    // No guard: read an account that cannot exist (a fresh random id of the real shape), so an
    // unknown email costs the same two reads as a known one, like login's dummy hash.
    const userId = guard.Item === undefined ? newId('usr') : String(guard.Item.user_id);
    const account = await read(keys.user(userId), 'email_verified');
    if (guard.Item === undefined || account.Item === undefined) return 'none';
    return account.Item.email_verified === true ? 'verified' : 'unverified';
  },

  async findIdByPhone(phone) {
    const guard = await getItem(keys.phoneGuard(phone));
    return guard === undefined ? undefined : String(guard.user_id);
  },

  async recordFailedLogin(userId) {
    try {
      const result = await documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.user(userId),
          UpdateExpression: 'ADD failed_logins :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(result.Attributes?.failed_logins ?? 1);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return 0;
      throw error;
    }
  },

  async lockLogin(userId, lockedUntil) {
    await conditionalUpdate({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET locked_until = :until',
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(locked_until) OR locked_until < :until)',
      ExpressionAttributeValues: { ':until': lockedUntil },
    });
  },

  async replacePasswordHash(userId, expectedHash, newHash) {
    return conditionalUpdate({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression:
        'SET password_hash = :new, failed_logins = :zero, locked_until = :zero, updated_at = :now',
      ConditionExpression: 'password_hash = :expected',
      ExpressionAttributeValues: {
        ':new': newHash,
        ':expected': expectedHash,
        ':zero': 0,
        ':now': new Date(systemClock.now()).toISOString(),
      },
    });
  },

  async replacePendingSignup(userId, email, name, passwordHash) {
    // Only a pending signup: a verified account's password is never set by a signup, nor that of
    // an account whose new email (a profile change) awaits its code — its owner would otherwise
    // activate it with a stranger's password. A missing account fails the condition too.
    await conditionalUpdate({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET #name = :name, password_hash = :hash',
      ConditionExpression:
        'email_verified = :false AND email = :email AND attribute_not_exists(email_changed_at)',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: {
        ':name': name,
        ':hash': passwordHash,
        ':false': false,
        ':email': email,
      },
    });
  },

  async markEmailVerified(userId, email) {
    return conditionalUpdate({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET email_verified = :true',
      ConditionExpression: 'email = :email',
      ExpressionAttributeValues: { ':true': true, ':email': email },
    });
  },

  async markPhoneVerified(userId, phone) {
    return conditionalUpdate({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET phone_verified = :true',
      ConditionExpression: 'phone = :phone',
      ExpressionAttributeValues: { ':true': true, ':phone': phone },
    });
  },

  async setOnlineStatus(userId, online) {
    await conditionalUpdate({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression: 'SET online_status = :online',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':online': online },
    });
  },

  async update(current, userId, changes) {
    if (current === undefined) return updateInPlace(userId, changes);
    const emailChanges = changes.email !== undefined && changes.email !== current.email;
    const phoneChanges = changes.phone !== undefined && changes.phone !== current.phone;
    if (!emailChanges && !phoneChanges) return updateInPlace(userId, changes);

    const { set, names, values } = simpleAssignments(changes);
    // The account must still have the email and phone this change was computed from.
    const conditions = ['email = :currentEmail'];
    values[':currentEmail'] = current.email;
    if (current.phone === null) conditions.push('attribute_not_exists(phone)');
    else {
      conditions.push('phone = :currentPhone');
      values[':currentPhone'] = current.phone;
    }
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [];
    const fieldOfItem: (string | undefined)[] = [undefined];
    if (emailChanges) {
      // email_changed_at: this account is no pending signup (replacePendingSignup).
      set.push('email = :email', 'email_verified = :false', 'email_changed_at = :now');
      values[':email'] = changes.email;
      values[':false'] = false;
      items.push(guardDelete(keys.emailGuard(current.email), current.id));
      fieldOfItem.push(undefined);
      items.push(guardPut(keys.emailGuard(changes.email!), current.id));
      fieldOfItem.push('email');
    }
    if (phoneChanges) {
      set.push('phone = :phone', 'phone_verified = :false');
      values[':phone'] = changes.phone;
      values[':false'] = false;
      if (current.phone !== null) {
        items.push(guardDelete(keys.phoneGuard(current.phone), current.id));
        fieldOfItem.push(undefined);
      }
      items.push(guardPut(keys.phoneGuard(changes.phone!), current.id));
      fieldOfItem.push('phone_number');
    }
    const outcome = await transactWrite({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: keys.user(current.id),
            UpdateExpression: `SET ${set.join(', ')}`,
            ConditionExpression: conditions.join(' AND '),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
        ...items,
      ],
    });
    if (!outcome.ok) {
      const field = fieldOfItem[outcome.failedIndex];
      if (field !== undefined) {
        throw new ServiceError(
          'conflict',
          `This ${field === 'email' ? 'email' : 'phone number'} is already in use`,
          [{ field, message: 'is already in use by another account' }],
        );
      }
      throw new ServiceError('conflict', 'The profile changed meanwhile; read it and try again');
    }
    return {
      ...current,
      name: changes.name ?? current.name,
      gender: changes.gender ?? current.gender,
      onlineStatus: changes.onlineStatus ?? current.onlineStatus,
      email: emailChanges ? changes.email! : current.email,
      emailVerified: emailChanges ? false : current.emailVerified,
      phone: phoneChanges ? changes.phone! : current.phone,
      phoneVerified: phoneChanges ? false : current.phoneVerified,
    };
  },
};
