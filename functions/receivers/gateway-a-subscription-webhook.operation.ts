import { type Answer, receiverOperation } from '../../shared/http/operation.js';
import { gatewayARequest } from '../../shared/http/schemas/inbound.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = receiverOperation({
  name: 'handleGatewayASubscriptionWebhook',
  method: 'POST',
  path: '/subscriptions/gateway-a',
  entry: 'functions/receivers/gateway-a-subscription-webhook.ts',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
  title: 'Gateway A subscriptions',
  summary: 'Gateway A subscription events',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
  },
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.InboundReceived,
  signedWith: 'gatewayASignature',
  receives: gatewayARequest,
};
