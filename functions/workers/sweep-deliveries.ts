import {
  deliveryDependencies,
  digestDependencies,
} from '../../shared/adapters/webhook-deliveries-wiring.js';
import { sendDueDigests } from '../../shared/domain/webhooks/failure-digest.js';
import { sweepDeliveries } from '../../shared/domain/webhooks/sweep-deliveries.js';
import { scheduledHandler } from '../../shared/lambda/invocation.js';

/**
 * Runs on a schedule (every 5 minutes, infra/service-stack.ts); locally every 5 seconds: re-queues
 * overdue work, then emails the failure digests of days that are over.
 */
export const handler = scheduledHandler(async () => ({
  ...(await sweepDeliveries(deliveryDependencies())),
  digestsSent: await sendDueDigests(digestDependencies()),
}));
