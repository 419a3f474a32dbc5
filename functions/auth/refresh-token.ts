import { accountDeps } from '../../shared/adapters/accounts.js';
import { refreshSession } from '../../shared/domain/accounts/sessions.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { RefreshTokenRequest } from '../../shared/http/schemas/auth.js';

/** POST /v1/auth/refresh-token: rotates the refresh token, returns a new pair. */
export const handler = apiHandler(
  { body: RefreshTokenRequest, countsOwnHit: true },
  async ({ body, hit }) => refreshSession(await accountDeps(), body.refresh_token, hit),
);
