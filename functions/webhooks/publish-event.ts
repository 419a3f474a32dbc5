import { publishEvent } from '../../shared/adapters/event-publisher.js';
import { ServiceError } from '../../shared/domain/errors.js';
import { eventView } from '../../shared/domain/webhooks/views.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { idempotencyKeyPattern, PublishEventRequest } from '../../shared/http/schemas/webhooks.js';

/** IAM-authorised on AWS (API Gateway checks SigV4 before this runs); open locally. */
export const handler = apiHandler(
  { body: PublishEventRequest, successStatus: 201 },
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
