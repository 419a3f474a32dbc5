import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { deliveryDependencies } from '../../shared/adapters/webhook-deliveries-wiring.js';
import { sendTestEvent } from '../../shared/domain/webhooks/publish-event.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { eventView } from '../../shared/http/views/webhooks.js';
import { operation } from './send-webhook-test-event.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params, query }) => {
    const { event, deliveryId } = await sendTestEvent(
      deliveryDependencies(),
      principal.userId,
      params.id,
      query.event_type,
    );
    return { event: eventView(event), delivery_id: deliveryId };
  },
);
