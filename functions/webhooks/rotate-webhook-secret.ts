import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { systemClock } from '../../shared/domain/clock.js';
import { rotateEndpointSecret } from '../../shared/domain/webhooks/endpoints.js';
import { endpointView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

const deps = { endpoints: dynamoEndpointRepository, clock: systemClock };

export const handler = authenticatedHandler(
  { authenticate, params: WebhookPathParams },
  async ({ principal, params }) => {
    const endpoint = await rotateEndpointSecret(deps, principal.userId, params.id);
    return {
      ...endpointView(endpoint, true),
      previous_secret_expires_at: new Date(endpoint.previousSecretExpiresAt ?? 0).toISOString(),
    };
  },
);
