import { notImplementedReceiver } from '../../shared/http/receiver-handler.js';

export const handler = notImplementedReceiver(
  'messagingWebhookVerification / messagingWebhookNotification',
  ['GET', 'POST'],
);
