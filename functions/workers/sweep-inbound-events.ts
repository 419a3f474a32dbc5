import { sweepDependencies } from '../../shared/adapters/inbound-wiring.js';
import { sweepInboundEvents } from '../../shared/domain/inbound/sweep-events.js';
import { scheduledHandler } from '../../shared/lambda/invocation.js';

/** Runs on a schedule (every 5 minutes, infra/service-stack.ts); locally every 5 seconds. */
export const handler = scheduledHandler(() => sweepInboundEvents(sweepDependencies()));
