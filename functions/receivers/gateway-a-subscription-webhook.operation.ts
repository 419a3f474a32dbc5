import { receiverOperation } from '../../shared/http/operation.js';

export const operation = receiverOperation({
  name: 'handleGatewayASubscriptionWebhook',
  method: 'POST',
  path: '/subscriptions/gateway-a',
  entry: 'functions/receivers/gateway-a-subscription-webhook.ts',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
  summary: 'Gateway A subscription events',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
  },
});
