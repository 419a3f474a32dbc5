import { dynamoPhoneRegistry } from '../../shared/adapters/dynamo-phone-registry.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { verifyPhoneAccount } from '../../shared/domain/otp/operations.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './verify-phone-account.operation.js';

/** GET /v1/verify/phone?phone=…: whether the number is registered (tightly limited per client). */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async ({ query }) =>
  verifyPhoneAccount(dynamoPhoneRegistry, query.phone),
);
