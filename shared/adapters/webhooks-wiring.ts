import { webhookEndpointsPerAccount } from '../config.js';
import { systemClock } from '../domain/clock.js';
import type { WebhookDependencies } from '../domain/webhooks/ports.js';
import { dynamoDeliveryRepository } from './dynamo-deliveries.js';
import { dynamoEndpointRepository } from './dynamo-webhook-endpoints.js';
import { lazily } from './lazily.js';
import { dnsUrlGuard } from './webhook-url-guard.js';

/**
 * The webhooks area's wiring: what its use-cases work with on AWS (or the local stand-ins). Each
 * getter builds its object on first call and returns the same one after; settings are getters of
 * that object, read when a use-case reaches them.
 *
 * What sends deliveries on their way lives in webhook-deliveries-wiring.ts: this module imports
 * no SQS client, sender or codec, so the endpoint operations and the delivery history, which
 * import it, carry none (esbuild keeps what a module's top level builds, even unused).
 */

export type EndpointDependencies = Pick<WebhookDependencies, 'endpoints' | 'clock'>;

/** Reading, deleting and rotating endpoints (no URL guard: it resolves names, and weighs). */
export const endpointDependencies = /* @__PURE__ */ lazily(
  (): EndpointDependencies => ({ endpoints: dynamoEndpointRepository, clock: systemClock }),
);

export type RegistrationDependencies = EndpointDependencies &
  Pick<WebhookDependencies, 'urlGuard'> & { endpointsPerAccount: number };

/** Registering an endpoint: its URL through the SSRF guard, the per-account cap. */
export const registrationDependencies = /* @__PURE__ */ lazily(
  (): RegistrationDependencies => ({
    ...endpointDependencies(),
    urlGuard: dnsUrlGuard,
    get endpointsPerAccount() {
      return webhookEndpointsPerAccount();
    },
  }),
);

export type DeliveryHistoryDependencies = Pick<WebhookDependencies, 'endpoints' | 'deliveries'>;

/** Listing an endpoint's deliveries (the endpoint is checked first). */
export const deliveryHistoryDependencies = /* @__PURE__ */ lazily(
  (): DeliveryHistoryDependencies => ({
    endpoints: dynamoEndpointRepository,
    deliveries: dynamoDeliveryRepository,
  }),
);

/** Reading one delivery: the deliveries alone (its key names the account). */
export const deliveryRecordDependencies = /* @__PURE__ */ lazily(
  (): Pick<WebhookDependencies, 'deliveries'> => ({ deliveries: dynamoDeliveryRepository }),
);
