import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { endpointDependencies } from '../../shared/adapters/webhooks-wiring.js';
import { listEndpoints } from '../../shared/domain/webhooks/endpoints.js';
import { apiHandler, Page } from '../../shared/http/api-handler.js';
import { endpointView } from '../../shared/http/views/webhooks.js';
import { operation } from './list-webhooks.operation.js';

export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, query }) => {
    const found = await listEndpoints(
      endpointDependencies(),
      principal.userId,
      {
        status: query.status,
        createdAfter: query.created_after,
        createdBefore: query.created_before,
      },
      { page: query.page, perPage: query.per_page, cursor: query.cursor },
    );
    return Page.of(found, query.per_page, (endpoint) => endpointView(endpoint));
  },
);
