import { backgroundOperation } from '../../shared/http/operation.js';

export const operation = backgroundOperation({
  name: 'processInboundEvent',
  entry: 'functions/workers/process-inbound-event.ts',
  surface: 'queue',
  queue: 'inbound',
  summary: 'Act on an accepted inbound webhook event (subscriptions, payment events)',
  needs: {
    items: ['inboundEvent', 'account', 'event', 'eventIdempotency', 'delivery', 'messaging'],
    deliveryQueue: true,
  },
});
