import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { deliveryDependencies } from '../../shared/adapters/webhook-deliveries-wiring.js';
import { updateEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { endpointView } from '../../shared/http/views/webhooks.js';
import { operation } from './update-webhook.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params, body }) =>
    endpointView(await updateEndpoint(deliveryDependencies(), principal.userId, params.id, body)),
);
