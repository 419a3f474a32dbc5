import { messagingReceiver } from '../../shared/http/inbound-receiver.js';

/** One function for the platform's one callback URL: GET handshake, POST notifications. */
export const handler = messagingReceiver();
