import {
  dashboardUrl,
  webhookDisableAfterDays,
  webhookEndpointMaxInFlight,
  webhookRetryDelaysSeconds,
} from '../config.js';
import { systemClock } from '../domain/clock.js';
import type { AttemptDependencies } from '../domain/webhooks/attempt-delivery.js';
import type { WebhookDependencies } from '../domain/webhooks/ports.js';
import { dynamoAccountContacts } from './dynamo-account-contacts.js';
import { dynamoDeliveryRepository } from './dynamo-deliveries.js';
import { dynamoEndpointLoadRepository } from './dynamo-endpoint-loads.js';
import { dynamoFailureDigestRepository } from './dynamo-failure-digests.js';
import { dynamoLadderMinuteRepository } from './dynamo-ladder-minutes.js';
import { dynamoEndpointRepository } from './dynamo-webhook-endpoints.js';
import { dynamoEventRepository } from './dynamo-webhook-events.js';
import { retryScheduler } from './eventbridge-retry-scheduler.js';
import { httpsWebhookSender } from './https-webhook-sender.js';
import { lazily } from './lazily.js';
import { mailer } from './ses-mailer.js';
import { deliveryQueue } from './sqs-delivery-queue.js';
import { dnsUrlGuard } from './webhook-url-guard.js';

/**
 * The webhooks area's wiring for what sends deliveries (webhooks-wiring.ts says why it is a module
 * of its own). Queues, senders and settings are getters of each object, read when a use-case
 * reaches them, so a stand-in the local runtime or a test installs later is the one used. Two
 * getters: only the worker carries the HTTPS sender, SES and Scheduler.
 */

export type DeliveryDependencies = Pick<
  WebhookDependencies,
  'endpoints' | 'events' | 'deliveries' | 'queue' | 'urlGuard' | 'clock' | 'retryDelaysSeconds'
>;

/**
 * What puts deliveries on their way — the repositories, the delivery queue (SQS, or the local
 * stand-in), the clock and the ladder: publication, test events, retries, recovery, enabling an
 * endpoint (hence the URL guard) and the sweeper all use it. No HTTPS client, mailer or
 * scheduler: only the worker attempts.
 */
export const deliveryDependencies = /* @__PURE__ */ lazily(
  (): DeliveryDependencies => ({
    endpoints: dynamoEndpointRepository,
    events: dynamoEventRepository,
    deliveries: dynamoDeliveryRepository,
    get queue() {
      return deliveryQueue();
    },
    urlGuard: dnsUrlGuard,
    clock: systemClock,
    get retryDelaysSeconds() {
      return webhookRetryDelaysSeconds();
    },
  }),
);

/** The delivery worker's: one attempt, its retry scheduled, its endpoint's owner told. */
export const attemptDependencies = /* @__PURE__ */ lazily(
  (): AttemptDependencies => ({
    deliveries: dynamoDeliveryRepository,
    endpoints: dynamoEndpointRepository,
    loads: dynamoEndpointLoadRepository,
    accounts: dynamoAccountContacts,
    get queue() {
      return deliveryQueue();
    },
    get scheduler() {
      return retryScheduler();
    },
    ladderMinutes: dynamoLadderMinuteRepository,
    digests: dynamoFailureDigestRepository,
    sender: httpsWebhookSender,
    get mailer() {
      return mailer();
    },
    clock: systemClock,
    get retryDelaysSeconds() {
      return webhookRetryDelaysSeconds();
    },
    get disableAfterDays() {
      return webhookDisableAfterDays();
    },
    get endpointMaxInFlight() {
      return webhookEndpointMaxInFlight();
    },
  }),
);

/** The sweeper's, for the failure digests: the digests, the owner's address and the mailer. */
export const digestDependencies = /* @__PURE__ */ lazily(() => ({
  digests: dynamoFailureDigestRepository,
  accounts: dynamoAccountContacts,
  get mailer() {
    return mailer();
  },
  clock: systemClock,
  get dashboardUrl() {
    return dashboardUrl();
  },
}));
