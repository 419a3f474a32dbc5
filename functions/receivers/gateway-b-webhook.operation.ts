import { type Answer, receiverOperation } from '../../shared/http/operation.js';
import { gatewayBRequest } from '../../shared/http/schemas/inbound.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = receiverOperation({
  name: 'handleGatewayBWebhook',
  method: 'POST',
  path: '/gateway-b-webhook',
  entry: 'functions/receivers/gateway-b-webhook.ts',
  secret: 'GATEWAY_B_WEBHOOK_SECRET',
  title: 'Gateway B events',
  summary: 'All gateway B events',
  needs: {
    items: ['inboundEvent', 'inboundAttempt'],
    inboundQueue: true,
  },
});

/** What it answers, for the OpenAPI document (the route table reads it; the handler does not). */
export const answer: Answer = {
  data: r.InboundReceived,
  signedWith: 'gatewayBSignature',
  receives: gatewayBRequest,
};
