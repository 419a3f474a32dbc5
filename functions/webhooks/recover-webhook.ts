import { authenticate } from '../../shared/adapters/authenticate.js';
import { deliveryDependencies } from '../../shared/adapters/event-publisher.js';
import { recoverDeliveries } from '../../shared/domain/webhooks/deliveries.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { RecoverWebhookRequest, WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

/** 202: the deliveries are queued, their attempts are yet to come. */
export const handler = authenticatedHandler(
  { authenticate, params: WebhookPathParams, body: RecoverWebhookRequest, successStatus: 202 },
  async ({ principal, params, body }) => {
    const { recovered, hasMore } = await recoverDeliveries(
      deliveryDependencies(),
      principal.userId,
      params.id,
      body,
    );
    return { recovered, has_more: hasMore };
  },
);
