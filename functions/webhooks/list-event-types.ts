import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { assertWindow } from '../../shared/domain/webhooks/windows.js';
import { apiHandler, Page } from '../../shared/http/api-handler.js';
import { subscribableEventTypeDocuments } from '../../shared/http/event-types.js';
import { operation } from './list-event-types.operation.js';

/**
 * GET /v1/event-types (public): every type a client can subscribe to, with its payload schema.
 * It takes the parameters every list takes; every type is `active` and none has a creation time,
 * so `status` and a window that can hold anything keep them all.
 */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ query }) => {
    assertWindow(
      { createdAfter: query.created_after, createdBefore: query.created_before },
      { after: 'created_after', before: 'created_before' },
    );
    const all = subscribableEventTypeDocuments();
    const start = (query.page - 1) * query.per_page;
    return new Page(all.slice(start, start + query.per_page), {
      page: query.page,
      per_page: query.per_page,
      total: all.length,
    });
  },
);
