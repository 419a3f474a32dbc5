import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { getEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { endpointView } from '../../shared/domain/webhooks/views.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './get-webhook.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) =>
    endpointView(
      await getEndpoint({ endpoints: dynamoEndpointRepository }, principal.userId, params.id),
    ),
);
