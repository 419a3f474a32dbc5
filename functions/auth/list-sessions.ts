import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { listSessions } from '../../shared/domain/accounts/sessions.js';
import { apiHandler, Page } from '../../shared/http/api-handler.js';
import { sessionView } from '../../shared/http/views/accounts.js';
import { operation } from './list-sessions.operation.js';

/** GET /v1/auth/sessions: the caller's live sessions, newest first, the caller's marked. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal }) => {
    const sessions = (await listSessions(accountDependencies(), principal)).map(sessionView);
    return new Page(sessions, { page: 1, per_page: sessions.length, total: sessions.length });
  },
);
