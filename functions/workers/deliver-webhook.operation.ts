import { backgroundOperation } from '../../shared/http/operation.js';

export const operation = backgroundOperation({
  name: 'deliverWebhook',
  entry: 'functions/workers/deliver-webhook.ts',
  surface: 'queue',
  queue: 'delivery',
  summary: 'Make one delivery attempt per SQS message',
  needs: {
    items: [
      'user',
      'account',
      'delivery',
      'event',
      'endpointLoad',
      'ladderMinute',
      'dueDeliveries',
      'failureDigest',
    ],
    email: true,
    deliveryQueue: true,
    scheduler: true,
  },
});
