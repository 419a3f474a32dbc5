import { webhookReceiver } from '../../shared/http/inbound-receiver.js';
import { operation } from './gateway-b-webhook.operation.js';

export const handler = webhookReceiver({
  endpoint: operation.name,
  source: 'gateway-b',
  secret: 'GATEWAY_B_WEBHOOK_SECRET',
});
