import { messagingReceiver } from '../../shared/http/inbound-receiver.js';
import { notificationOperation, verificationOperation } from './messaging-webhook.operation.js';

/** One function for the platform's one callback URL: GET handshake, POST notifications. */
export const handler = messagingReceiver(verificationOperation, notificationOperation);
