import { webhookReceiver } from '../../shared/http/inbound-receiver.js';

export const handler = webhookReceiver({
  endpoint: 'handleGatewayAWebhookEnhanced',
  source: 'gateway-a',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
});
