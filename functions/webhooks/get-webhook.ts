import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { getEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { endpointView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, params: WebhookPathParams },
  async ({ principal, params }) =>
    endpointView(
      await getEndpoint({ endpoints: dynamoEndpointRepository }, principal.userId, params.id),
    ),
);
