import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { endAllSessions } from '../../shared/domain/accounts/sessions.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './logout-all.operation.js';

/** POST /v1/auth/logout-all: ends every session of the caller, this one included. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal }) => {
    await endAllSessions(accountDependencies(), principal.userId);
    return { message: 'Every session has been signed out' };
  },
);
