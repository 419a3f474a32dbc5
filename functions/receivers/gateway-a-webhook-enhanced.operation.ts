import { type Answer, receiverOperation } from '../../shared/http/operation.js';
import { gatewayARequest } from '../../shared/http/schemas/inbound.js';
import * as r from '../../shared/http/schemas/responses.js';

export const operation = receiverOperation({
  name: 'handleGatewayAWebhookEnhanced',
  method: 'POST',
  path: '/gateway-a-webhook-enhanced',
  entry: 'functions/receivers/gateway-a-webhook-enhanced.ts',
  secret: 'GATEWAY_A_WEBHOOK_SECRET',
  title: 'Gateway A events (enhanced)',
  summary: 'Gateway A events, enhanced verification',
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
