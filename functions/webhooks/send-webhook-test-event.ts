import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoDeliveryRepository } from '../../shared/adapters/dynamo-deliveries.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { dynamoEventRepository } from '../../shared/adapters/dynamo-webhook-events.js';
import { deliveryQueue } from '../../shared/adapters/sqs-delivery-queue.js';
import { webhookRetryDelaysSeconds } from '../../shared/config.js';
import { systemClock } from '../../shared/domain/clock.js';
import { sendTestEvent } from '../../shared/domain/webhooks/publish-event.js';
import { eventView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler } from '../../shared/http/api-handler.js';
import { WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, params: WebhookPathParams },
  async ({ principal, params }) => {
    const { event, deliveryId } = await sendTestEvent(
      {
        endpoints: dynamoEndpointRepository,
        events: dynamoEventRepository,
        deliveries: dynamoDeliveryRepository,
        queue: deliveryQueue(),
        clock: systemClock,
        retryDelaysSeconds: webhookRetryDelaysSeconds(),
      },
      principal.userId,
      params.id,
    );
    return { event: eventView(event), delivery_id: deliveryId };
  },
);
