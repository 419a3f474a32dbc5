import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoDeliveryRepository } from '../../shared/adapters/dynamo-deliveries.js';
import { getDelivery } from '../../shared/domain/webhooks/deliveries.js';
import { deliveryView, eventView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { DeliveryPathParams } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, params: DeliveryPathParams },
  async ({ principal, params }) => {
    const { delivery, event } = await getDelivery(
      { deliveries: dynamoDeliveryRepository },
      principal.userId,
      params.id,
      params.delivery_id,
    );
    // The event as it was posted; null once it has expired (events and deliveries live 30 days).
    return { ...deliveryView(delivery), event: event === undefined ? null : eventView(event) };
  },
);
