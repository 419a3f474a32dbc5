import { ServiceError } from '../errors.js';
import { endpointNotFound } from './endpoints.js';
import type { Delivery } from './model.js';
import type { DeliveryListFilter, WebhookDependencies } from './ports.js';

/**
 * Attempts a delivery may hold in all: the ladder's five, plus manual retries. Bounds the item
 * (each attempt keeps at most 1 KiB of response body).
 */
export const maxAttemptsPerDelivery = 20;

export interface PageRequest {
  page: number;
  perPage: number;
}

/** The deliveries of one of the account's endpoints, newest first, one page of them. */
export async function listDeliveries(
  deps: Pick<WebhookDependencies, 'endpoints' | 'deliveries'>,
  accountId: string,
  endpointId: string,
  filter: DeliveryListFilter,
  page: PageRequest,
): Promise<{ items: Delivery[]; total: number }> {
  if ((await deps.endpoints.get(accountId, endpointId)) === undefined) throw endpointNotFound();
  const createdAfter =
    filter.createdAfter === undefined ? undefined : new Date(filter.createdAfter).toISOString();
  const all = await deps.deliveries.listForEndpoint(endpointId, { ...filter, createdAfter });
  const start = (page.page - 1) * page.perPage;
  return { items: all.slice(start, start + page.perPage), total: all.length };
}

/**
 * Attempts a delivery again now. A pending one is brought forward; a delivered or failed one
 * gets one more attempt (which sends no second failure notice). One being attempted right now
 * is a 409: its outcome is moments away.
 */
export async function retryDelivery(
  deps: Pick<WebhookDependencies, 'deliveries' | 'queue' | 'clock'>,
  accountId: string,
  endpointId: string,
  deliveryId: string,
): Promise<Delivery> {
  const delivery = await deps.deliveries.get(deliveryId);
  if (
    delivery === undefined ||
    delivery.accountId !== accountId ||
    delivery.endpointId !== endpointId
  ) {
    throw new ServiceError('not_found', 'No delivery with this id for this endpoint');
  }
  if (delivery.status === 'attempting') {
    throw new ServiceError('conflict', 'This delivery is being attempted right now');
  }
  if (delivery.status !== 'pending' && delivery.attempts.length >= maxAttemptsPerDelivery) {
    throw new ServiceError(
      'conflict',
      `This delivery has had ${maxAttemptsPerDelivery} attempts, the most it may have`,
    );
  }
  const reopened = await deps.deliveries.reopen(delivery, deps.clock.now());
  if (reopened === undefined) {
    throw new ServiceError('conflict', 'This delivery changed meanwhile; try again');
  }
  await deps.queue.enqueue([
    { deliveryId: reopened.id, attempt: reopened.nextAttempt, delaySeconds: 0 },
  ]);
  return reopened;
}
