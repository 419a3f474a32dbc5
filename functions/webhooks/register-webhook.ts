import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { dnsUrlGuard } from '../../shared/adapters/webhook-url-guard.js';
import { dynamoWindowCounter } from '../../shared/adapters/window-counter.js';
import { webhookEndpointsPerAccount } from '../../shared/config.js';
import { systemClock } from '../../shared/domain/clock.js';
import { registerEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { endpointView } from '../../shared/domain/webhooks/views.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './register-webhook.operation.js';

const deps = {
  endpoints: dynamoEndpointRepository,
  urlGuard: dnsUrlGuard,
  clock: systemClock,
  endpointsPerAccount: webhookEndpointsPerAccount(),
};

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, body }) =>
    endpointView(await registerEndpoint(deps, principal.userId, body), true),
);
