import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { deliveryHistoryDependencies } from '../../shared/adapters/webhooks-wiring.js';
import { listDeliveries } from '../../shared/domain/webhooks/deliveries.js';
import { apiHandler, Page } from '../../shared/http/api-handler.js';
import { deliveryView } from '../../shared/http/views/webhooks.js';
import { operation } from './list-webhook-deliveries.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params, query }) => {
    const found = await listDeliveries(
      deliveryHistoryDependencies(),
      principal.userId,
      params.id,
      {
        status: query.status,
        eventType: query.event_type,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
      },
      { page: query.page, perPage: query.per_page, cursor: query.cursor },
    );
    return Page.of(found, query.per_page, deliveryView);
  },
);
