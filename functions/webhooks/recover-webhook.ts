import { authenticate } from '../../shared/adapters/authenticate.js';
import { dynamoWindowCounter } from '../../shared/adapters/dynamo-window-counter.js';
import { deliveryDependencies } from '../../shared/adapters/webhook-deliveries-wiring.js';
import { recoverDeliveries } from '../../shared/domain/webhooks/deliveries.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { operation } from './recover-webhook.operation.js';

/** 202: the deliveries are queued, their attempts are yet to come. */
export const handler = apiHandler(
  operation,
  { counter: dynamoWindowCounter, authenticate },
  async ({ principal, params, body }) => {
    const { recovered, hasMore } = await recoverDeliveries(
      deliveryDependencies(),
      principal.userId,
      params.id,
      body,
    );
    return { recovered, has_more: hasMore };
  },
);
