import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { deliveryRecordDependencies } from '../../shared/adapters/webhooks-wiring.js';
import { getDelivery } from '../../shared/domain/webhooks/deliveries.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { deliveryView, eventView } from '../../shared/http/views/webhooks.js';
import { operation } from './get-webhook-delivery.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) => {
    const { delivery, event } = await getDelivery(
      deliveryRecordDependencies(),
      principal.userId,
      params.id,
      params.delivery_id,
    );
    // The event as it was posted; null once it has expired (events and deliveries live 30 days).
    return { ...deliveryView(delivery), event: event === undefined ? null : eventView(event) };
  },
);
