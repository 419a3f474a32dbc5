import { authenticate } from '../../shared/adapters/authenticate.js';
import { deliveryDependencies } from '../../shared/adapters/event-publisher.js';
import { dnsUrlGuard } from '../../shared/adapters/webhook-url-guard.js';
import { updateEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import { endpointView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { UpdateWebhookRequest, WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, params: WebhookPathParams, body: UpdateWebhookRequest },
  async ({ principal, params, body }) =>
    endpointView(
      await updateEndpoint(
        { ...deliveryDependencies(), urlGuard: dnsUrlGuard },
        principal.userId,
        params.id,
        body,
      ),
    ),
);
