import { receiverOperation } from '../../shared/http/operation.js';

export const operation = receiverOperation({
  name: 'handleGatewayAWebhook',
  method: 'POST',
  path: '/gateway-a-webhook-listener',
  entry: 'functions/receivers/gateway-a-webhook.ts',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
  summary: 'Gateway A payment and order events',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
  },
});
