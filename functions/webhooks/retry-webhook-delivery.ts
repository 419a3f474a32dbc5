import { authenticate } from '../../shared/adapters/authenticate.js';
import { deliveryDependencies } from '../../shared/adapters/event-publisher.js';
import { retryDelivery } from '../../shared/domain/webhooks/deliveries.js';
import { deliveryView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { DeliveryPathParams } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, params: DeliveryPathParams },
  async ({ principal, params }) =>
    deliveryView(
      await retryDelivery(deliveryDependencies(), principal.userId, params.id, params.delivery_id),
    ),
);
