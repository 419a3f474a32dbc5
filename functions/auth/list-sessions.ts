import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { listSessions } from '../../shared/domain/accounts/sessions.js';
import { apiHandler, Page } from '../../shared/http/api-handler.js';
import { sessionView } from '../../shared/http/views/accounts.js';
import { operation } from './list-sessions.operation.js';

/** GET /v1/auth/sessions: a page of the caller's live sessions, the caller's marked. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, query }) => {
    const found = await listSessions(
      accountDependencies(),
      principal,
      { createdAfter: query.created_after, createdBefore: query.created_before },
      { page: query.page, perPage: query.per_page, cursor: query.cursor },
    );
    return Page.of(found, query.per_page, sessionView);
  },
);
