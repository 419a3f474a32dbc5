import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { deliveryDependencies } from '../../shared/adapters/webhook-deliveries-wiring.js';
import { retryDelivery } from '../../shared/domain/webhooks/deliveries.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { deliveryView } from '../../shared/http/views/webhooks.js';
import { operation } from './retry-webhook-delivery.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params }) =>
    deliveryView(
      await retryDelivery(deliveryDependencies(), principal.userId, params.id, params.delivery_id),
    ),
);
