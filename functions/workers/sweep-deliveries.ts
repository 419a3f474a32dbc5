import { deliveryDependencies } from '../../shared/adapters/event-publisher.js';
import {
  type SweepResult,
  sweepDeliveries,
} from '../../shared/domain/webhooks/sweep-deliveries.js';

/** Runs on a schedule (every 5 minutes, infra/service-stack.ts); locally every 5 seconds. */
export const handler = async (): Promise<SweepResult> => sweepDeliveries(deliveryDependencies());
