import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoDeliveryRepository } from '../../shared/adapters/dynamo-deliveries.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { listDeliveries } from '../../shared/domain/webhooks/deliveries.js';
import { deliveryView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler, Page } from '../../shared/http/api-handler.js';
import { ListDeliveriesQuery, WebhookPathParams } from '../../shared/http/schemas/webhooks.js';

const deps = { endpoints: dynamoEndpointRepository, deliveries: dynamoDeliveryRepository };

export const handler = authenticatedHandler(
  { authenticate, params: WebhookPathParams, query: ListDeliveriesQuery },
  async ({ principal, params, query }) => {
    const { items, total } = await listDeliveries(
      deps,
      principal.userId,
      params.id,
      {
        status: query.status,
        eventType: query.event_type,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
      },
      { page: query.page, perPage: query.per_page },
    );
    return new Page(items.map(deliveryView), {
      page: query.page,
      per_page: query.per_page,
      total,
    });
  },
);
