import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { authenticateDeferringSessionCheck } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { getProfile } from '../../shared/domain/accounts/profile-view.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { userView } from '../../shared/http/views/accounts.js';
import { operation } from './get-profile.operation.js';

/** GET /v1/profile: the caller's own profile, read with the caller's session in one round trip. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate: authenticateDeferringSessionCheck },
  async ({ principal }) => userView(await getProfile(accountDependencies(), principal)),
);
