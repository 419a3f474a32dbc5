import { backgroundOperation } from '../../shared/http/operation.js';

export const operation = backgroundOperation({
  name: 'sweepDeliveries',
  entry: 'functions/workers/sweep-deliveries.ts',
  surface: 'schedule',
  summary:
    'Re-enqueue deliveries whose next attempt is overdue; email the failure digests of days that are over',
  needs: {
    items: [
      'user',
      'account',
      'delivery',
      'event',
      'dueDeliveries',
      'pausedDeliveries',
      'resumingEndpoints',
      'stalledFanOuts',
      'failureDigest',
      'dueDigests',
    ],
    deliveryQueue: true,
    email: true,
  },
});
