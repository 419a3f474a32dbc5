import { receiverOperation } from '../../shared/http/operation.js';

export const operation = receiverOperation({
  name: 'handleGatewayBWebhook',
  method: 'POST',
  path: '/gateway-b-webhook',
  entry: 'functions/receivers/gateway-b-webhook.ts',
  secret: 'GATEWAY_B_WEBHOOK_SECRET',
  summary: 'All gateway B events',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
  },
});
