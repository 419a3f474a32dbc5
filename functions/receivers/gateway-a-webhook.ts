import { webhookReceiver } from '../../shared/http/inbound-receiver.js';
import { operation } from './gateway-a-webhook.operation.js';

export const handler = webhookReceiver(operation, 'gateway-a');
