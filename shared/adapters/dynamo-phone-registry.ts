import type { PhoneRegistry } from '../domain/otp/operations.js';
import { getItem } from './dynamodb.js';
import { keys } from './keys.js';

/** Registration of a phone is the presence of its uniqueness guard: one strongly consistent read. */
export const dynamoPhoneRegistry: PhoneRegistry = {
  async isRegistered(phone) {
    return (await getItem(keys.phoneGuard(phone), { projection: 'pk' })) !== undefined;
  },
};
