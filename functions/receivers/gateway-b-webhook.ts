import { webhookReceiver } from '../../shared/http/inbound-receiver.js';

export const handler = webhookReceiver({
  endpoint: 'handleGatewayBWebhook',
  source: 'gateway-b',
  secret: 'GATEWAY_B_WEBHOOK_SECRET',
});
