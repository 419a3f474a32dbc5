import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { endpointDependencies } from '../../shared/adapters/webhooks-wiring.js';
import { rotateEndpointSecret } from '../../shared/domain/webhooks/endpoints.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { endpointView } from '../../shared/http/views/webhooks.js';
import { operation } from './rotate-webhook-secret.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) => {
    const endpoint = await rotateEndpointSecret(
      endpointDependencies(),
      principal.userId,
      params.id,
    );
    return {
      ...endpointView(endpoint, true),
      previous_secret_expires_at: new Date(endpoint.previousSecretExpiresAt ?? 0).toISOString(),
    };
  },
);
