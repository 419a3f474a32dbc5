import { accountDeps } from '../../shared/adapters/accounts.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { getProfile } from '../../shared/domain/accounts/profile-view.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';

/** GET /v1/profile: the caller's own profile. */
export const handler = authenticatedHandler({ authenticate }, async ({ principal }) =>
  getProfile(await accountDeps(), principal.userId),
);
