import { ServiceError } from '../errors.js';
import { assertReachable, type PageOf, type PageRequest } from '../pages.js';
import { endpointNotFound } from './endpoints.js';
import { deliveryIdFor } from './ids.js';
import type { Delivery, StoredEvent, WebhookEndpoint } from './model.js';
import type { DeliveryListFilter, WebhookDependencies } from './ports.js';
import { queueDueAttempts } from './schedule-attempt.js';
import { assertWindow } from './windows.js';

/** Failed deliveries one recovery call re-queues at most; the client calls again for the rest. */
export const recoveredPerCall = 100;

const deliveryNotFound = () =>
  new ServiceError('not_found', 'No delivery with this id for this endpoint');

/** Retry, recovery and test events need the endpoint enabled: a disabled one receives nothing. */
const endpointDisabled = (what: string) =>
  new ServiceError(
    'conflict',
    `This endpoint is disabled; enable it (PATCH with status "enabled") before ${what}`,
  );

export async function enabledEndpoint(
  deps: Pick<WebhookDependencies, 'endpoints'>,
  accountId: string,
  endpointId: string,
  what: string,
): Promise<WebhookEndpoint> {
  const endpoint = await deps.endpoints.get(accountId, endpointId);
  if (endpoint === undefined) throw endpointNotFound();
  if (endpoint.status === 'disabled') throw endpointDisabled(what);
  return endpoint;
}

/** The deliveries of one of the account's endpoints, newest first, one page of them. */
export async function listDeliveries(
  deps: Pick<WebhookDependencies, 'endpoints' | 'deliveries'>,
  accountId: string,
  endpointId: string,
  filter: DeliveryListFilter,
  request: PageRequest,
): Promise<PageOf<Delivery>> {
  assertWindow(filter, { after: 'created_after', before: 'created_before' });
  assertReachable(request);
  if ((await deps.endpoints.get(accountId, endpointId)) === undefined) throw endpointNotFound();
  return deps.deliveries.listForEndpoint(endpointId, filter, request);
}

/**
 * One delivery of one of the account's endpoints, with the event it carries (as posted). A
 * delivery of a deleted endpoint is gone for its owner too, as in the list.
 */
export async function getDelivery(
  deps: Pick<WebhookDependencies, 'deliveries'>,
  accountId: string,
  endpointId: string,
  /** The delivery's id, or its event's (`evt_…`): the delivery of that event to this endpoint. */
  deliveryOrEventId: string,
): Promise<{ delivery: Delivery; event?: StoredEvent }> {
  const delivery = await deps.deliveries.get(
    deliveryOrEventId.startsWith('evt_')
      ? deliveryIdFor(deliveryOrEventId, endpointId)
      : deliveryOrEventId,
  );
  if (
    delivery === undefined ||
    delivery.accountId !== accountId ||
    delivery.endpointId !== endpointId
  ) {
    throw deliveryNotFound();
  }
  const { event, endpoint } = await deps.deliveries.loadTarget(delivery);
  if (endpoint === undefined) throw deliveryNotFound();
  return { delivery, event };
}

/**
 * Attempts a delivery again now. A pending one is brought forward; a delivered or failed one
 * gets one more attempt (which sends no second failure notice). One being attempted right now
 * is a 409: its outcome is moments away.
 */
export async function retryDelivery(
  deps: Pick<WebhookDependencies, 'endpoints' | 'deliveries' | 'queue' | 'clock'>,
  accountId: string,
  endpointId: string,
  deliveryId: string,
): Promise<Delivery> {
  const [endpoint, delivery] = await Promise.all([
    deps.endpoints.get(accountId, endpointId),
    deps.deliveries.get(deliveryId),
  ]);
  if (
    endpoint === undefined ||
    delivery === undefined ||
    delivery.accountId !== accountId ||
    delivery.endpointId !== endpointId
  ) {
    throw deliveryNotFound();
  }
  if (endpoint.status === 'disabled') throw endpointDisabled('retrying its deliveries');
  if (delivery.status === 'attempting') {
    throw new ServiceError('conflict', 'This delivery is being attempted right now');
  }
  if (delivery.status === 'paused') {
    throw new ServiceError('conflict', 'This delivery waits for its endpoint to be enabled');
  }
  const reopened = await deps.deliveries.reopen(delivery, deps.clock.now(), 1);
  if (reopened === undefined) {
    throw new ServiceError('conflict', 'This delivery changed meanwhile; try again');
  }
  await deps.queue.enqueue([
    { deliveryId: reopened.id, attempt: reopened.nextAttempt, delaySeconds: 0 },
  ]);
  return reopened;
}

/**
 * POST /v1/webhooks/{id}/recover: re-queues the endpoint's failed deliveries created from `since`
 * until `until` (ISO 8601 UTC; now when absent), oldest first and at most `limit` of them, each
 * with a fresh ladder. A recovered delivery is pending, so calling again with the same
 * window re-queues only the rest (`hasMore`) and never gives one delivery two ladders: the move
 * failed → pending is a conditional write that one call wins.
 */
export async function recoverDeliveries(
  deps: Pick<
    WebhookDependencies,
    'endpoints' | 'deliveries' | 'queue' | 'clock' | 'retryDelaysSeconds'
  >,
  accountId: string,
  endpointId: string,
  window: { since: string; until?: string },
  limit = recoveredPerCall,
): Promise<{ recovered: number; hasMore: boolean }> {
  const now = deps.clock.now();
  const until = window.until ?? new Date(now).toISOString();
  if (window.since >= until) {
    throw new ServiceError('invalid_request', 'since must be before until', [
      { field: 'since', message: `must be before until (${until})` },
    ]);
  }
  await enabledEndpoint(deps, accountId, endpointId, 'recovering its deliveries');
  // `since` counts, `until` does not: the window's start is made exclusive one millisecond
  // earlier (creation times have millisecond precision). One more than a call handles tells
  // whether more remain.
  const failed = await deps.deliveries.listFailed(
    endpointId,
    { createdAfter: new Date(Date.parse(window.since) - 1).toISOString(), createdBefore: until },
    limit + 1,
  );
  const reopened = await Promise.all(
    failed
      .slice(0, limit)
      .map((delivery) => deps.deliveries.reopen(delivery, now, deps.retryDelaysSeconds.length)),
  );
  const messages = reopened.flatMap((delivery) =>
    delivery === undefined
      ? []
      : [{ deliveryId: delivery.id, attempt: delivery.nextAttempt, delaySeconds: 0 }],
  );
  await queueDueAttempts(deps, messages, { endpointId, recovered: messages.length });
  return { recovered: messages.length, hasMore: failed.length > limit };
}
