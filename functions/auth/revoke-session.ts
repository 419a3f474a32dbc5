import { accountDependencies } from '../../shared/adapters/accounts-wiring.js';
import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { endSession } from '../../shared/domain/accounts/sessions.js';
import { ServiceError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './revoke-session.operation.js';

/** DELETE /v1/auth/sessions/{id}: ends one of the caller's sessions (its tokens stop at once). */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) => {
    if (
      !(await endSession(accountDependencies(), { userId: principal.userId, sessionId: params.id }))
    ) {
      throw new ServiceError('not_found', 'No such session', [
        { field: 'id', message: 'is not a session of this account' },
      ]);
    }
    return { id: params.id, revoked: true };
  },
);
