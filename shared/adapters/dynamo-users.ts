import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import {
  type Activation,
  dropsSignup,
  type PendingConfirmation,
  type ProfileChanges,
  type UserRepository,
} from '../domain/accounts/ports.js';
import { newId, type PublicUser, type User } from '../domain/accounts/user.js';
import { systemClock } from '../domain/clock.js';
import { Refusal } from '../domain/errors.js';
import { getItem, transactWrite, updateIf } from './dynamodb.js';
import { keys } from './keys.js';

/**
 * Accounts in the single table:
 * - `USER#<uid>` / `PROFILE`: the account (snake_case attributes; an attribute left out is null);
 * - `EMAIL#<email>` and `PHONE#<e164>`: uniqueness guards holding the owner's `user_id`, for the
 *   account's email (verified, or the one its pending signup awaits a code for) and its verified
 *   phone. A guard is written in the same transaction as what it guards, with
 *   `attribute_not_exists(pk)`, so a second claim fails inside DynamoDB rather than in a
 *   read-then-write race. Pending emails and phones have no guard: they reserve nothing.
 */

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function userFromItem(item: Record<string, unknown>): User {
  return {
    id: String(item.user_id),
    name: String(item.name),
    email: String(item.email),
    phone: text(item.phone),
    pendingEmail: text(item.pending_email),
    pendingPhone: text(item.pending_phone),
    gender: text(item.gender),
    onlineStatus: item.online_status === true,
    emailVerified: item.email_verified === true,
    passwordHash: String(item.password_hash ?? ''),
    passwordResetRequired: item.password_reset_required === true,
    signupContested: item.signup_contested === true,
    signupRecovery: item.signup_recovery === true,
    phoneConfirmationRequired: item.phone_confirmation_required === true,
    totpEnabled: item.totp_enabled === true,
    signupNames: item.signup_names instanceof Set ? [...item.signup_names].map(String) : [],
    createdAt: String(item.created_at),
  };
}

/** What answers show of the account an item holds, read as `userFromItem` reads it. */
export function publicUserFromItem(item: Record<string, unknown>): PublicUser {
  const user = userFromItem(item);
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    phone: user.phone,
    pendingEmail: user.pendingEmail,
    pendingPhone: user.pendingPhone,
    gender: user.gender,
    onlineStatus: user.onlineStatus,
    emailVerified: user.emailVerified,
    phoneConfirmationRequired: user.phoneConfirmationRequired,
    totpEnabled: user.totpEnabled,
    createdAt: user.createdAt,
  };
}

/** The attributes of a `PublicUser` as the account's item names them (null ones left out). */
export function publicUserItem(user: PublicUser): Record<string, string | boolean> {
  const item: Record<string, string | boolean> = {
    user_id: user.id,
    name: user.name,
    email: user.email,
    online_status: user.onlineStatus,
    email_verified: user.emailVerified,
    phone_confirmation_required: user.phoneConfirmationRequired,
    totp_enabled: user.totpEnabled,
    created_at: user.createdAt,
  };
  const optional = {
    phone: user.phone,
    pending_email: user.pendingEmail,
    pending_phone: user.pendingPhone,
    gender: user.gender,
  };
  for (const [attribute, value] of Object.entries(optional)) {
    if (value !== null) item[attribute] = value;
  }
  return item;
}

/** The attributes `publicUserItem` may write: those `publicUserFromItem` reads. */
const publicAttributes = [
  'user_id',
  'name',
  'email',
  'phone',
  'pending_email',
  'pending_phone',
  'gender',
  'online_status',
  'email_verified',
  'phone_confirmation_required',
  'totp_enabled',
  'created_at',
] as const;

/**
 * A transaction's check that the account still reads as `user` (by `publicUserFromItem`'s rules:
 * a flag that is not true reads false, a value that is not a string reads null); when it does
 * not, the account's item as it is comes back with the cancellation.
 */
export function accountStillReadsAs(user: PublicUser) {
  const expected = publicUserItem(user);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = publicAttributes.map((attribute, index) => {
    const name = `#a${index}`;
    names[name] = attribute;
    const value = expected[attribute];
    if (value === undefined) {
      values[':string'] = 'S';
      return `(attribute_not_exists(${name}) OR NOT attribute_type(${name}, :string))`;
    }
    if (value === false) {
      values[':true'] = true;
      return `(attribute_not_exists(${name}) OR ${name} <> :true)`;
    }
    values[`:v${index}`] = value;
    return `${name} = :v${index}`;
  });
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.user(user.id),
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
}

function itemFromUser(user: User): Record<string, unknown> {
  return {
    ...keys.user(user.id),
    user_id: user.id,
    name: user.name,
    email: user.email,
    phone: user.phone ?? undefined,
    pending_email: user.pendingEmail ?? undefined,
    pending_phone: user.pendingPhone ?? undefined,
    gender: user.gender ?? undefined,
    online_status: user.onlineStatus,
    email_verified: user.emailVerified,
    password_hash: user.passwordHash,
    password_reset_required: user.passwordResetRequired || undefined,
    signup_contested: user.signupContested || undefined,
    signup_recovery: user.signupRecovery || undefined,
    phone_confirmation_required: user.phoneConfirmationRequired || undefined,
    totp_enabled: user.totpEnabled || undefined,
    signup_names: user.signupNames.length > 0 ? new Set(user.signupNames) : undefined,
    created_at: user.createdAt,
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

/** Parts of one UpdateItem on an account, which several writes compose. */
export interface AccountUpdate {
  set: string[];
  remove: string[];
  conditions: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Joins the parts into an UpdateItem's expressions. */
export function accountUpdateInput(userId: string, update: AccountUpdate) {
  const remove = update.remove.length > 0 ? ` REMOVE ${update.remove.join(', ')}` : '';
  return {
    Key: keys.user(userId),
    UpdateExpression: `SET ${update.set.join(', ')}${remove}`,
    ConditionExpression: update.conditions.join(' AND '),
    ExpressionAttributeNames: Object.keys(update.names).length > 0 ? update.names : undefined,
    ExpressionAttributeValues: update.values,
  };
}

/** A flag's condition: as the activation read it, set or absent. */
const flagAsRead = (attribute: string, set: boolean) =>
  set ? `${attribute} = :true` : `attribute_not_exists(${attribute})`;

/**
 * The write of an activation: the email verified; when the signer may not have made it
 * (contested, or a recovery), the signup's password, pending phone and strangers' names dropped.
 * Conditioned on the contest and recovery state the activation was computed from, so a signup
 * contesting the account, or a forgot-password, meanwhile fails it (the caller reads again).
 */
export function activationClauses(activation: Activation): AccountUpdate {
  const update: AccountUpdate = {
    set: ['email_verified = :true', '#name = :name'],
    remove: ['signup_names'],
    conditions: [
      'email = :email',
      'email_verified = :false',
      flagAsRead('signup_contested', activation.contested),
      flagAsRead('signup_recovery', activation.recovery),
    ],
    names: { '#name': 'name' },
    values: {
      ':true': true,
      ':false': false,
      ':email': activation.email,
      ':name': activation.name,
    },
  };
  if (dropsSignup(activation)) {
    update.set.push('password_hash = :none', 'password_reset_required = :true');
    update.values[':none'] = '';
    update.remove.push('pending_phone', 'signup_contested', 'signup_recovery');
  }
  return update;
}

/** SET clauses of the profile fields a change names; `name` is a reserved word. */
function assignments(changes: ProfileChanges) {
  const set = ['updated_at = :now'];
  let names: Record<string, string> | undefined;
  const values: Record<string, unknown> = { ':now': new Date(systemClock.now()).toISOString() };
  const assign = (attribute: string, value: unknown) => {
    if (value === undefined) return;
    set.push(`${attribute} = :${attribute}`);
    values[`:${attribute}`] = value;
  };
  if (changes.name !== undefined) {
    names = { '#name': 'name' };
    set.push('#name = :name');
    values[':name'] = changes.name;
  }
  assign('gender', changes.gender);
  assign('online_status', changes.onlineStatus);
  assign('pending_email', changes.pendingEmail);
  assign('pending_phone', changes.pendingPhone);
  return { set, names, values };
}

/**
 * Moves a pending identifier to the account in one transaction: the account's value and its
 * guard move together, the pending value must still be the one proven, and the new guard must be
 * free (another account proved the value first: 'taken').
 */
async function confirmPending(
  user: User,
  field: 'email' | 'phone',
  value: string,
): Promise<PendingConfirmation> {
  const guardOf = field === 'email' ? keys.emailGuard : keys.phoneGuard;
  const current = field === 'email' ? user.email : user.phone;
  const verified = field === 'email' ? ', email_verified = :true' : '';
  const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.user(user.id),
        // A phone confirmed now was asked for after any reset: it signs in by SMS.
        UpdateExpression: `SET ${field} = :value${verified}, updated_at = :now REMOVE pending_${field}${field === 'phone' ? ', phone_confirmation_required' : ''}`,
        ConditionExpression:
          current === null
            ? `pending_${field} = :value AND attribute_not_exists(${field})`
            : `pending_${field} = :value AND ${field} = :current`,
        ExpressionAttributeValues: {
          ':value': value,
          ':now': new Date(systemClock.now()).toISOString(),
          ...(field === 'email' ? { ':true': true } : {}),
          ...(current === null ? {} : { ':current': current }),
        },
      },
    },
    guardPut(guardOf(value), user.id),
  ];
  if (current !== null) items.push(guardDelete(guardOf(current), user.id));
  const outcome = await transactWrite({ TransactItems: items });
  if (outcome.ok) return 'confirmed';
  return outcome.failedIndex === 1 ? 'taken' : 'stale';
}

/**
 * Writes a new password hash only if it is still `expectedHash` (no lost update between two
 * concurrent changes), lifting `password_reset_required`. A reset (`asRecovery`) also drops the
 * pending email and phone and holds the phone's SMS sign-in back — whether or not there is a
 * phone, so one confirmed by an older code in the instant before this write is held back too.
 * False when the hash changed meanwhile.
 */
async function writePassword(
  userId: string,
  expectedHash: string,
  newHash: string,
  asRecovery: boolean,
): Promise<boolean> {
  const [set, remove] = asRecovery
    ? [', phone_confirmation_required = :true', ', pending_email, pending_phone']
    : ['', ''];
  const result = await updateIf({
    Key: keys.user(userId),
    UpdateExpression: `SET password_hash = :new, updated_at = :now${set} REMOVE password_reset_required${remove}`,
    ConditionExpression: 'password_hash = :expected',
    ExpressionAttributeValues: {
      ':new': newHash,
      ':expected': expectedHash,
      ':now': new Date(systemClock.now()).toISOString(),
      ...(asRecovery ? { ':true': true } : {}),
    },
  });
  return result.ok;
}

export const dynamoUserRepository: UserRepository = {
  async create(user) {
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
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
    // A signup's phone stays pending: it only must not be another account's verified phone.
    if (user.pendingPhone !== null) {
      items.push({
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.phoneGuard(user.pendingPhone),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    }
    const outcome = await transactWrite({ TransactItems: items });
    if (outcome.ok) return { outcome: 'created' };
    if (outcome.failedIndex === 2) return { outcome: 'phone_taken' };
    const holderId = outcome.failedItem?.user_id;
    if (outcome.failedIndex !== 1 || typeof holderId !== 'string') {
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
    // No guard: read an account that cannot exist (a fresh random id of the real shape), so an
    // unknown email costs the same two reads as a known one (login, like its dummy hash).
    const item = await getItem(
      keys.user(guard === undefined ? newId('usr') : String(guard.user_id)),
    );
    return guard === undefined || item === undefined ? undefined : userFromItem(item);
  },

  async emailStanding(email) {
    const guard = await getItem(keys.emailGuard(email), { projection: 'user_id' });
    // As findByEmail: the same two reads for an unknown email.
    const userId = guard === undefined ? newId('usr') : String(guard.user_id);
    const account = await getItem(keys.user(userId), { projection: 'email_verified' });
    if (guard === undefined || account === undefined) return 'none';
    return account.email_verified === true ? 'verified' : 'unverified';
  },

  async findIdByPhone(phone) {
    const guard = await getItem(keys.phoneGuard(phone));
    return guard === undefined ? undefined : String(guard.user_id);
  },

  replacePasswordHash: (userId, expectedHash, newHash) =>
    writePassword(userId, expectedHash, newHash, false),

  async signupHolder(email) {
    const guard = await getItem(keys.emailGuard(email), { projection: 'user_id' });
    // As findByEmail: the same two reads for an unknown email.
    const userId = guard === undefined ? newId('usr') : String(guard.user_id);
    const account = await getItem(keys.user(userId), {
      projection: 'password_hash, email_verified',
    });
    if (guard === undefined || account === undefined) return undefined;
    const pending = account.email_verified === false && typeof account.password_hash === 'string';
    return pending ? { userId, pendingHash: String(account.password_hash) } : { userId };
  },

  recoverWithPassword: (userId, expectedHash, newHash) =>
    writePassword(userId, expectedHash, newHash, true),

  async markSignupRecovery(userId, email) {
    await updateIf({
      Key: keys.user(userId),
      UpdateExpression: 'SET signup_recovery = :true',
      ConditionExpression: 'email_verified = :false AND email = :email',
      ExpressionAttributeValues: { ':true': true, ':false': false, ':email': email },
    });
  },

  async confirmPhoneAgain(userId, phone) {
    await updateIf({
      Key: keys.user(userId),
      UpdateExpression: 'REMOVE phone_confirmation_required',
      ConditionExpression: 'phone = :phone AND phone_confirmation_required = :true',
      ExpressionAttributeValues: { ':phone': phone, ':true': true },
    });
  },

  async contestPendingSignup(holderId, email, name, signerId) {
    // Only a pending signup, and never the signup's own fresh account. No credential is written:
    // the flag alone makes the activation drop the password (activationUpdate).
    await updateIf({
      Key: keys.user(holderId),
      UpdateExpression: 'SET signup_contested = :true ADD signup_names :names',
      ConditionExpression: 'email_verified = :false AND email = :email AND user_id <> :signer',
      ExpressionAttributeValues: {
        ':true': true,
        ':false': false,
        ':email': email,
        ':signer': signerId,
        ':names': new Set([name]),
      },
    });
  },

  async withdrawSignup(userId, email) {
    await transactWrite({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: keys.user(userId),
            ConditionExpression:
              'email_verified = :false AND attribute_not_exists(signup_contested) AND attribute_not_exists(signup_recovery)',
            ExpressionAttributeValues: { ':false': false },
          },
        },
        guardDelete(keys.emailGuard(email), userId),
      ],
    });
  },

  async activate(userId, activation) {
    const result = await updateIf(accountUpdateInput(userId, activationClauses(activation)));
    return result.ok;
  },

  confirmPendingEmail: (user, email) => confirmPending(user, 'email', email),
  confirmPendingPhone: (user, phone) => confirmPending(user, 'phone', phone),

  async setOnlineStatus(userId, online) {
    await updateIf({
      Key: keys.user(userId),
      UpdateExpression: 'SET online_status = :online',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':online': online },
    });
  },

  async update(userId, changes) {
    const { set, names, values } = assignments(changes);
    const result = await updateIf({
      Key: keys.user(userId),
      UpdateExpression: `SET ${set.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    });
    if (!result.ok) throw new Refusal('accountGone');
    return userFromItem(result.attributes ?? {});
  },
};
