import { receiverOperation } from '../../shared/http/operation.js';

export const verificationOperation = receiverOperation({
  name: 'messagingWebhookVerification',
  method: 'GET',
  path: '/messaging',
  entry: 'functions/receivers/messaging-webhook.ts',
  summary: 'Messaging platform subscription handshake',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
    secrets: ['MESSAGING_APP_SECRET', 'MESSAGING_VERIFY_TOKEN'],
  },
});

export const notificationOperation = receiverOperation({
  name: 'messagingWebhookNotification',
  method: 'POST',
  path: '/messaging',
  entry: 'functions/receivers/messaging-webhook.ts',
  summary: 'Messaging platform notifications',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
    secrets: ['MESSAGING_APP_SECRET', 'MESSAGING_VERIFY_TOKEN'],
  },
});
