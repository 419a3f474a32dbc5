import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { pageOfSorted } from '../../shared/adapters/page-cursor.js';
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
    // In the catalogue's order, each type's place in it its position.
    const catalogue = subscribableEventTypeDocuments().map((document, index) => ({
      document,
      position: String(index).padStart(6, '0'),
    }));
    const found = pageOfSorted(
      catalogue,
      { page: query.page, perPage: query.per_page, cursor: query.cursor },
      (entry) => entry.position,
      false,
    );
    return Page.of(found, query.per_page, (entry) => entry.document);
  },
);
