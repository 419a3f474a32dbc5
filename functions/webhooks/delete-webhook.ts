import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { endpointDependencies } from '../../shared/adapters/webhooks-wiring.js';
import { deleteEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './delete-webhook.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) => {
    await deleteEndpoint(endpointDependencies(), principal.userId, params.id);
    return { id: params.id, deleted: true };
  },
);
