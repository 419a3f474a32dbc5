import { webhookReceiver } from '../../shared/http/inbound-receiver.js';

export const handler = webhookReceiver({
  endpoint: 'handleGatewayASubscriptionWebhook',
  source: 'gateway-a',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
});
