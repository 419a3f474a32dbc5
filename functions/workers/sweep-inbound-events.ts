import { sweepDependencies } from '../../shared/adapters/inbound-wiring.js';
import {
  type InboundSweepResult,
  sweepInboundEvents,
} from '../../shared/domain/inbound/sweep-events.js';

/** Runs on a schedule (every 5 minutes, infra/service-stack.ts); locally every 5 seconds. */
export const handler = async (): Promise<InboundSweepResult> =>
  sweepInboundEvents(sweepDependencies());
