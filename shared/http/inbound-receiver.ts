import { receiveDependencies } from '../adapters/inbound-wiring.js';
import { secretValues } from '../adapters/secrets.js';
import type { ServiceError } from '../domain/errors.js';
import type { InboundCall, InboundSource } from '../domain/inbound/model.js';
import {
  receiveEvent,
  recordUnproven,
  verifySubscription,
} from '../domain/inbound/receive-event.js';
import { sourceRules } from '../domain/inbound/sources.js';
import type { ReceiverOperation } from './operation.js';
import { type InboundRequest, PlainText, receiverHandler } from './receiver-handler.js';
import { acknowledgementView } from './views/inbound.js';

const callOf = (endpoint: string, request: InboundRequest): InboundCall => ({
  ...request,
  endpoint,
});

/**
 * A call refused before the use-case (a method not served, a body over the size limit) proves
 * nothing about its sender: counted, and stored within the sample of such calls.
 */
const recordEdgeRefusal =
  (source: InboundSource, endpointOf: (request: InboundRequest) => string) =>
  (request: InboundRequest, error: ServiceError): Promise<void> =>
    recordUnproven(
      receiveDependencies(),
      source,
      callOf(endpointOf(request), request),
      error.code === 'payload_too_large' ? 'too_large' : 'wrong_method',
    );

/**
 * A gateway receiver: POST only, signature-verified, acknowledged once stored and queued. Its
 * definition gives the operation name (kept on each audit record) and the signing secret
 * (comma-separated, newest first: two active values while a secret is rotated).
 */
export function webhookReceiver(
  operation: ReceiverOperation,
  source: Exclude<InboundSource, 'messaging'>,
) {
  return receiverHandler(
    { methods: ['POST'], onRefused: recordEdgeRefusal(source, () => operation.name) },
    async (request) =>
      acknowledgementView(
        await receiveEvent(
          receiveDependencies(),
          sourceRules[source],
          await secretValues(operation.secret),
          callOf(operation.name, request),
        ),
      ),
  );
}

/**
 * The messaging platform's one callback URL: GET is the subscription handshake (the challenge
 * echoed as text/plain, checked with the verify token), POST a notification signed with the app
 * secret — each named by its operation's definition.
 */
export function messagingReceiver(
  verification: ReceiverOperation,
  notification: ReceiverOperation,
) {
  const operationOf = (request: InboundRequest) =>
    request.method === 'GET' ? verification : notification;
  return receiverHandler(
    {
      methods: ['GET', 'POST'],
      onRefused: recordEdgeRefusal('messaging', (request) => operationOf(request).name),
    },
    async (request) => {
      const operation = operationOf(request);
      const call = callOf(operation.name, request);
      const secrets = await secretValues(operation.secret);
      if (operation === verification) {
        return new PlainText(await verifySubscription(receiveDependencies(), secrets, call));
      }
      return acknowledgementView(
        await receiveEvent(receiveDependencies(), sourceRules.messaging, secrets, call),
      );
    },
  );
}
