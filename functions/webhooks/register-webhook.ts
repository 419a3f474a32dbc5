import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { registrationDependencies } from '../../shared/adapters/webhooks-wiring.js';
import { registerEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { endpointView } from '../../shared/http/views/webhooks.js';
import { operation } from './register-webhook.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body }) =>
    endpointView(await registerEndpoint(registrationDependencies(), principal.userId, body), true),
);
