import { receiverOperation } from '../../shared/http/operation.js';

export const operation = receiverOperation({
  name: 'handleGatewayAWebhookEnhanced',
  method: 'POST',
  path: '/gateway-a-webhook-enhanced',
  entry: 'functions/receivers/gateway-a-webhook-enhanced.ts',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
  summary: 'Gateway A events, enhanced verification',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
  },
});
