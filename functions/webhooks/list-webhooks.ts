import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { listEndpoints } from '../../shared/domain/webhooks/endpoints.js';
import { endpointView } from '../../shared/domain/webhooks/views.js';
import { authenticatedHandler, Page } from '../../shared/http/api-handler.js';
import { ListWebhooksQuery } from '../../shared/http/schemas/webhooks.js';

export const handler = authenticatedHandler(
  { authenticate, query: ListWebhooksQuery },
  async ({ principal, query }) => {
    const { items, total } = await listEndpoints(
      { endpoints: dynamoEndpointRepository },
      principal.userId,
      {
        status: query.status,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
      },
      { page: query.page, perPage: query.per_page },
    );
    return new Page(
      items.map((endpoint) => endpointView(endpoint)),
      { page: query.page, per_page: query.per_page, total },
    );
  },
);
