import { receiveDependencies } from '../adapters/inbound-wiring.js';
import { type SecretName, secretValues } from '../config.js';
import type { ServiceError } from '../domain/errors.js';
import type { InboundCall, InboundSource } from '../domain/inbound/model.js';
import {
  receiveEvent,
  recordRefusal,
  verifySubscription,
} from '../domain/inbound/receive-event.js';
import { sourceRules } from '../domain/inbound/sources.js';
import { log } from '../log.js';
import { type InboundRequest, PlainText, receiverHandler } from './receiver-handler.js';
import { statusOfCode } from './responses.js';

const callOf = (endpoint: string, request: InboundRequest): InboundCall => ({
  ...request,
  endpoint,
});

/** Every refused call is audited; a failing audit write is logged but never turns a 4xx into a 5xx. */
const auditRefusal =
  (source: InboundSource, endpointOf: (request: InboundRequest) => string) =>
  async (request: InboundRequest, error: ServiceError): Promise<void> => {
    try {
      await recordRefusal(
        receiveDependencies(),
        source,
        callOf(endpointOf(request), request),
        error,
        statusOfCode[error.code],
      );
    } catch (cause) {
      log.error('could not record a refused inbound webhook', { error: cause });
    }
  };

export interface WebhookReceiverOptions {
  /** The operation name (service-interface.md), kept on each audit record. */
  endpoint: string;
  source: Exclude<InboundSource, 'messaging'>;
  /** Comma-separated, newest first: two active values while a secret is rotated. */
  secret: SecretName;
}

/** A gateway receiver: POST only, signature-verified, acknowledged once stored and queued. */
export function webhookReceiver(options: WebhookReceiverOptions) {
  return receiverHandler(
    { methods: ['POST'], onRefused: auditRefusal(options.source, () => options.endpoint) },
    async (request) =>
      receiveEvent(
        receiveDependencies(),
        sourceRules[options.source],
        await secretValues(options.secret),
        callOf(options.endpoint, request),
      ),
  );
}

const messagingEndpoint = (request: InboundRequest) =>
  request.method === 'GET' ? 'messagingWebhookVerification' : 'messagingWebhookNotification';

/**
 * The messaging platform's one callback URL: GET is the subscription handshake (the challenge
 * echoed as text/plain), POST a signed notification.
 */
export function messagingReceiver() {
  return receiverHandler(
    { methods: ['GET', 'POST'], onRefused: auditRefusal('messaging', messagingEndpoint) },
    async (request) => {
      const call = callOf(messagingEndpoint(request), request);
      if (request.method === 'GET') {
        const tokens = await secretValues('MESSAGING_VERIFY_TOKEN');
        return new PlainText(await verifySubscription(receiveDependencies(), tokens, call));
      }
      return receiveEvent(
        receiveDependencies(),
        sourceRules.messaging,
        await secretValues('MESSAGING_APP_SECRET'),
        call,
      );
    },
  );
}
