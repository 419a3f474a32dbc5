import { log } from '../../log.js';
import { metrics } from '../metrics.js';
import type { AttemptRecord, Delivery, WebhookEndpoint } from './model.js';
import { escapeHtml, type Notice, sendNotice } from './notices.js';
import type { WebhookDependencies } from './ports.js';

/**
 * Failure notices as a digest: a delivery whose first ladder ends without a 2xx is counted on its
 * endpoint's digest of that UTC day (one conditional-free update on one item per endpoint and
 * day), and once the day is over the sweeper emails the owner one digest per endpoint — counts,
 * first and last failure, the last reason, and where to see them. An endpoint whose 10,000
 * deliveries fail costs its owner one email that day, not 10,000.
 */

const dayMs = 24 * 60 * 60 * 1000;

/** The UTC day (epoch ms of its start) a time falls in. */
export const dayOf = (at: number): number => Math.floor(at / dayMs) * dayMs;

/** One endpoint's failures of one UTC day, as its digest sends them. */
export interface FailureDigest {
  endpointId: string;
  accountId: string;
  url: string;
  /** Epoch ms of the day's start. */
  day: number;
  failed: number;
  /** Failed deliveries per event type. */
  byEventType: Record<string, number>;
  /** ISO 8601 UTC. */
  firstFailureAt: string;
  lastFailureAt: string;
  lastError: string;
}

/** The digests of endpoints, each sent at most once (DynamoDB: one item per endpoint and day). */
export interface FailureDigestRepository {
  /** Counts one failed delivery on the digest of `day`, to be sent once `sendAfter` passed. */
  add(
    failure: { endpoint: WebhookEndpoint; delivery: Delivery; last: AttemptRecord; at: number },
    day: number,
    sendAfter: number,
  ): Promise<void>;
  /**
   * Takes the digests due before `before` (epoch ms), at most `limit`: each is marked sent as it is
   * taken, so of two sweeps one gets it (and a crash after taking it loses that email, never
   * doubles it).
   */
  takeDue(before: number, limit: number): Promise<FailureDigest[]>;
}

/** Digests one sweep sends at most; the next sweep sends the rest. */
export const digestsPerSweep = 100;

/** Counts a delivery that failed for good on its endpoint's digest of the day. */
export async function addToDigest(
  deps: Pick<WebhookDependencies, 'digests'>,
  endpoint: WebhookEndpoint,
  delivery: Delivery,
  last: AttemptRecord,
  at: number,
): Promise<void> {
  try {
    const day = dayOf(at);
    await deps.digests.add({ endpoint, delivery, last, at }, day, day + dayMs);
  } catch (error) {
    // The delivery is stored as failed and listed as such; only the notice is missing.
    log.error('failure not added to the digest', { deliveryId: delivery.id, error });
  }
}

/** Emails the digests of days that are over. Returns how many it sent. */
export async function sendDueDigests(
  deps: Pick<WebhookDependencies, 'digests' | 'accounts' | 'mailer' | 'clock'> & {
    dashboardUrl?: string;
  },
): Promise<number> {
  const due = await deps.digests.takeDue(deps.clock.now(), digestsPerSweep);
  for (const digest of due) {
    await sendNotice(deps, digest.accountId, digestNotice(digest, deps.dashboardUrl));
    metrics.count('FailureDigestsSent', {});
  }
  return due.length;
}

/** The digest email of one endpoint's day. */
export function digestNotice(digest: FailureDigest, dashboardUrl?: string): Notice {
  const date = new Date(digest.day).toISOString().slice(0, 10);
  const plural = digest.failed === 1 ? 'delivery' : 'deliveries';
  const types = Object.entries(digest.byEventType)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, count]) => `${type}: ${count}`)
    .join(', ');
  const link =
    dashboardUrl === undefined
      ? undefined
      : `${dashboardUrl.replace(/\/?$/, '/')}#/endpoints/${digest.endpointId}?status=failed`;
  const list = `GET /v1/webhooks/${digest.endpointId}/deliveries?status=failed`;
  const recover = `POST /v1/webhooks/${digest.endpointId}/recover`;
  const url = escapeHtml(digest.url);
  return {
    subject: `Webhook deliveries failed on ${date}: ${digest.failed} to ${digest.url}`,
    text: [
      `${digest.failed} ${plural} to ${digest.url} (endpoint ${digest.endpointId}) failed for good on ${date} (UTC), after every attempt of the retry ladder.`,
      `By event type: ${types}.`,
      `First failure: ${digest.firstFailureAt}. Last failure: ${digest.lastFailureAt}, the last reason: ${digest.lastError}.`,
      link === undefined
        ? `List them with ${list}.`
        : `See them in the dashboard: ${link} (or ${list}).`,
      `Once the endpoint works again, send them again with ${recover}. This is the only email about this endpoint's failures of that day.`,
    ].join('\n\n'),
    html: [
      `${digest.failed} ${plural} to <code>${url}</code> (endpoint <code>${digest.endpointId}</code>) failed for good on ${date} (UTC), after every attempt of the retry ladder.`,
      `By event type: ${escapeHtml(types)}.`,
      `First failure: ${digest.firstFailureAt}. Last failure: ${digest.lastFailureAt}, the last reason: ${escapeHtml(digest.lastError)}.`,
      link === undefined
        ? `List them with <code>${list}</code>.`
        : `See them in the dashboard: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a> (or <code>${list}</code>).`,
      `Once the endpoint works again, send them again with <code>${recover}</code>. This is the only email about this endpoint's failures of that day.`,
    ]
      .map((paragraph) => `<p>${paragraph}</p>`)
      .join(''),
  };
}
