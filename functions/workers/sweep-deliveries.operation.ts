import { backgroundOperation } from '../../shared/http/operation.js';

export const operation = backgroundOperation({
  name: 'sweepDeliveries',
  entry: 'functions/workers/sweep-deliveries.ts',
  surface: 'schedule',
  summary: 'Re-enqueue deliveries whose next attempt is overdue',
  needs: {
    items: [
      'account',
      'delivery',
      'event',
      'dueDeliveries',
      'pausedDeliveries',
      'resumingEndpoints',
      'stalledFanOuts',
    ],
    deliveryQueue: true,
  },
});
