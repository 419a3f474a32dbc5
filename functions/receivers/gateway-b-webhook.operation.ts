import { receiverOperation } from '../../shared/http/operation.js';

export const operation = receiverOperation({
  name: 'handleGatewayBWebhook',
  method: 'POST',
  path: '/gateway-b-webhook',
  entry: 'functions/receivers/gateway-b-webhook.ts',
  summary: 'All gateway B events',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
    secrets: ['GATEWAY_B_WEBHOOK_SECRET'],
  },
});
