import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { endpointDependencies } from '../../shared/adapters/webhooks-wiring.js';
import { getEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { endpointView } from '../../shared/http/views/webhooks.js';
import { operation } from './get-webhook.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) =>
    endpointView(await getEndpoint(endpointDependencies(), principal.userId, params.id)),
);
