import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { systemClock } from '../../shared/domain/clock.js';
import { rotateEndpointSecret } from '../../shared/domain/webhooks/endpoints.js';
import { endpointView } from '../../shared/domain/webhooks/views.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './rotate-webhook-secret.operation.js';

const deps = { endpoints: dynamoEndpointRepository, clock: systemClock };

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) => {
    const endpoint = await rotateEndpointSecret(deps, principal.userId, params.id);
    return {
      ...endpointView(endpoint, true),
      previous_secret_expires_at: new Date(endpoint.previousSecretExpiresAt ?? 0).toISOString(),
    };
  },
);
