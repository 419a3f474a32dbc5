import { webhookReceiver } from '../../shared/http/inbound-receiver.js';

export const handler = webhookReceiver({
  endpoint: 'handleGatewayAWebhook',
  source: 'gateway-a',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
});
