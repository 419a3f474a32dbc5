import { log } from '../../log.js';
import { metrics } from '../metrics.js';
import type { WebhookEndpoint } from './model.js';
import { endpointDisabledNotice, sendNotice } from './notices.js';
import type { WebhookDependencies } from './ports.js';

const dayMs = 24 * 60 * 60 * 1000;

type HealthDependencies = Pick<
  WebhookDependencies,
  'endpoints' | 'accounts' | 'mailer' | 'disableAfterDays'
>;

/**
 * Keeps an endpoint's failure streak after an attempt was recorded, and disables the endpoint
 * once it has had nothing but failures for `disableAfterDays` (WEBHOOK_DISABLE_AFTER_DAYS,
 * Svix's five days): a receiver that is gone stops costing attempts, and its owner is told once.
 *
 * `endpoint` is as the attempt read it, so a steady endpoint costs no write: only the first
 * failure after a success, the first success after failures, and the disabling itself write.
 * Time is the service clock's (`at`), so tests move it instead of waiting days.
 */
export async function noteEndpointHealth(
  deps: HealthDependencies,
  endpoint: WebhookEndpoint,
  succeeded: boolean,
  at: number,
): Promise<void> {
  try {
    const { accountId, id, failingSince } = endpoint;
    if (succeeded) {
      if (failingSince !== undefined)
        await deps.endpoints.clearFailing(accountId, id, failingSince);
      return;
    }
    if (failingSince === undefined) {
      await deps.endpoints.markFailing(accountId, id, at);
      return;
    }
    if (at - failingSince < deps.disableAfterDays * dayMs) return;
    // Conditional on this streak and on the endpoint still being enabled: of concurrent failing
    // attempts, one disables it and emails; a success that came meanwhile keeps it enabled.
    if (await deps.endpoints.disableForFailing(accountId, id, failingSince, at)) {
      log.warn('webhook endpoint disabled after failing', { endpointId: id, failingSince });
      metrics.count('EndpointsAutoDisabled', {});
      await sendNotice(deps, accountId, endpointDisabledNotice(endpoint, deps.disableAfterDays));
    }
  } catch (error) {
    // The attempt is recorded; the streak is kept again by the next attempt's outcome.
    log.error('endpoint health not updated', { endpointId: endpoint.id, error });
  }
}
