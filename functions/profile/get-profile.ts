import { accountDeps } from '../../shared/adapters/accounts.js';
import { authenticateDeferringSessionCheck } from '../../shared/adapters/authenticate.js';
import { getProfile } from '../../shared/domain/accounts/profile-view.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';

/** GET /v1/profile: the caller's own profile, read with the caller's session in one round trip. */
export const handler = authenticatedHandler(
  { authenticate: authenticateDeferringSessionCheck },
  async ({ principal }) => getProfile(await accountDeps(), principal),
);
