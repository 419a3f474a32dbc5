import { authenticate } from '../../shared/adapters/authenticate.js';
import { deliveryDependencies } from '../../shared/adapters/event-publisher.js';
import { sendTestEvent } from '../../shared/domain/webhooks/publish-event.js';
import { eventView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, params: WebhookPathParams },
  async ({ principal, params }) => {
    const { event, deliveryId } = await sendTestEvent(
      deliveryDependencies(),
      principal.userId,
      params.id,
    );
    return { event: eventView(event), delivery_id: deliveryId };
  },
);
