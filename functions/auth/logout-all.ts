import { accountDeps } from '../../shared/adapters/accounts.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { endAllSessions } from '../../shared/domain/accounts/sessions.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';

/** POST /v1/auth/logout-all: ends every session of the caller, this one included. */
export const handler = authenticatedHandler({ authenticate }, async ({ principal }) => {
  await endAllSessions(await accountDeps(), principal.userId);
  return { message: 'Every session has been signed out' };
});
