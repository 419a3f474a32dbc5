import { webhookReceiver } from '../../shared/http/inbound-receiver.js';
import { operation } from './gateway-a-subscription-webhook.operation.js';

export const handler = webhookReceiver({
  endpoint: operation.name,
  source: 'gateway-a',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
});
