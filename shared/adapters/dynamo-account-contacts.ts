import type { AccountContacts } from '../domain/webhooks/ports.js';
import { getItem } from './dynamodb.js';
import { keys } from './keys.js';

/** The account's email, read from its user item (the accounts area owns that item). */
export const dynamoAccountContacts: AccountContacts = {
  async emailOf(accountId) {
    const item = await getItem(keys.user(accountId), { projection: 'email', consistent: false });
    return typeof item?.email === 'string' ? item.email : undefined;
  },
};
