import { type Answer, type Needs, receiverOperation } from '../../shared/http/operation.js';
import {
  messagingHandshakeRequest,
  messagingNotificationRequest,
} from '../../shared/http/schemas/inbound.js';
import * as r from '../../shared/http/schemas/responses.js';

/** One function serves both: the platform's one callback URL (GET handshake, POST events). */
const needs: Needs = {
  items: ['inboundEvent', 'inboundAttempt'],
  inboundQueue: true,
};

export const verificationOperation = receiverOperation({
  name: 'messagingWebhookVerification',
  method: 'GET',
  path: '/messaging',
  entry: 'functions/receivers/messaging-webhook.ts',
  secret: 'MESSAGING_VERIFY_TOKEN',
  title: 'Messaging handshake',
  summary: 'Messaging platform subscription handshake',
  needs,
});

export const notificationOperation = receiverOperation({
  name: 'messagingWebhookNotification',
  method: 'POST',
  path: '/messaging',
  entry: 'functions/receivers/messaging-webhook.ts',
  secret: 'MESSAGING_APP_SECRET',
  title: 'Messaging notifications',
  summary: 'Messaging platform notifications',
  needs,
});

/** What the handshake answers, for the OpenAPI document (the route table reads it). */
export const verificationAnswer: Answer = {
  document: 'text',
  errors: ['forbidden'],
  receives: messagingHandshakeRequest,
};

/** What a notification answers, for the OpenAPI document (the route table reads it). */
export const notificationAnswer: Answer = {
  data: r.InboundReceived,
  signedWith: 'messagingSignature',
  receives: messagingNotificationRequest,
};
