import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { ServiceError } from '../../shared/domain/errors.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './not-found.operation.js';

/**
 * Any method on any path below /v1 that no operation serves (API Gateway's `ANY /{proxy+}`): the
 * 404 envelope through the same stack as every answer, so it carries the rate-limit headers and
 * a request id, and a client probing paths spends its per-client budget doing so.
 */
export const handler = apiHandler(operation, { counter: dynamoWindowCounter }, async () => {
  throw new ServiceError('not_found', 'No operation serves this method and path');
});
