import { deliveryDependencies } from '../../shared/adapters/webhook-deliveries-wiring.js';
import { sweepDeliveries } from '../../shared/domain/webhooks/sweep-deliveries.js';
import { scheduledHandler } from '../../shared/lambda/invocation.js';

/** Runs on a schedule (every 5 minutes, infra/service-stack.ts); locally every 5 seconds. */
export const handler = scheduledHandler(() => sweepDeliveries(deliveryDependencies()));
