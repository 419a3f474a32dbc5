import { webhookReceiver } from '../../shared/http/inbound-receiver.js';
import { operation } from './gateway-b-webhook.operation.js';

export const handler = webhookReceiver(operation, 'gateway-b');
