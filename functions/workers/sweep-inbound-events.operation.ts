import { backgroundOperation } from '../../shared/http/operation.js';

export const operation = backgroundOperation({
  name: 'sweepInboundEvents',
  entry: 'functions/workers/sweep-inbound-events.ts',
  surface: 'schedule',
  summary: 'Re-enqueue accepted inbound events left unprocessed; give up after 5 sweeps',
  needs: { items: ['inboundEvent', 'stalledInboundEvents'], inboundQueue: true },
});
