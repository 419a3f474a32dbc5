import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoDeliveryRepository } from '../../shared/adapters/dynamo-deliveries.js';
import { deliveryQueue } from '../../shared/adapters/sqs-delivery-queue.js';
import { systemClock } from '../../shared/domain/clock.js';
import { retryDelivery } from '../../shared/domain/webhooks/deliveries.js';
import { deliveryView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { DeliveryPathParams } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, params: DeliveryPathParams },
  async ({ principal, params }) =>
    deliveryView(
      await retryDelivery(
        { deliveries: dynamoDeliveryRepository, queue: deliveryQueue(), clock: systemClock },
        principal.userId,
        params.id,
        params.delivery_id,
      ),
    ),
);
