import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { deleteEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, params: WebhookPathParams },
  async ({ principal, params }) => {
    await deleteEndpoint({ endpoints: dynamoEndpointRepository }, principal.userId, params.id);
    return { id: params.id, deleted: true };
  },
);
