import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { publishEvent } from '../../shared/adapters/event-publisher.js';
import { ServiceError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { idempotencyKeyPattern } from '../../shared/http/schemas/webhooks.js';
import { eventView } from '../../shared/http/views/webhooks.js';
import { operation } from './publish-event.operation.js';

/** IAM-authorised on AWS (API Gateway checks SigV4 before this runs); open locally. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter },
  async ({ body, headers }) => {
    const idempotencyKey = headers['idempotency-key'];
    if (idempotencyKey !== undefined && !idempotencyKeyPattern.test(idempotencyKey)) {
      throw new ServiceError('invalid_request', 'The Idempotency-Key header is invalid', [
        { field: 'idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
    const { event, deliveryCount } = await publishEvent({
      type: body.type,
      accountId: body.account_id,
      data: body.data,
      idempotencyKey,
    });
    return { ...eventView(event), delivery_count: deliveryCount };
  },
);
