import { dynamoPhoneRegistry } from '../../shared/adapters/otp-operations.js';
import { phoneLookupPerClient } from '../../shared/domain/otp/limits.js';
import { verifyPhoneAccount } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { VerifyPhoneAccountQuery } from '../../shared/http/schemas/phone-requests.js';

/** GET /v1/verify/phone?phone=…: whether the number is registered (tightly limited per client). */
export const handler = apiHandler(
  {
    query: VerifyPhoneAccountQuery,
    limits: [{ ...phoneLookupPerClient, key: ({ client }) => client }],
  },
  async ({ query }) => verifyPhoneAccount(dynamoPhoneRegistry, query.phone),
);
