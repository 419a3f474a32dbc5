import { ServiceError } from '../errors.js';
import type { EventType } from '../event-types.js';
import type { PageOf, PageRequest } from '../pages.js';
import { canonicalUrl } from './address-policy.js';
import { newEndpointId } from './ids.js';
import type { EndpointStatus, WebhookEndpoint } from './model.js';
import type { CreatedWindow, EndpointChange, WebhookDependencies } from './ports.js';
import { queueDueAttempts } from './schedule-attempt.js';
import { generateSigningSecret } from './signing.js';
import { assertWindow, isInWindow } from './windows.js';

/** How long the previous secret keeps signing after a rotation. */
export const previousSecretLifetimeMs = 24 * 60 * 60 * 1000;

type EndpointDeps = Pick<WebhookDependencies, 'endpoints' | 'urlGuard' | 'clock'> & {
  /** The most endpoints one account may have (every event fans out to each of them). */
  endpointsPerAccount: number;
};

export function endpointNotFound(): ServiceError {
  return new ServiceError('not_found', 'No webhook endpoint with this id');
}

const refusedUrl = (reason: string) =>
  new ServiceError('invalid_request', `The webhook URL cannot receive deliveries: url ${reason}`, [
    { field: 'url', message: reason },
  ]);

/** The canonical form of a URL that passed the SSRF guard; what is stored and posted to. */
async function acceptedUrl(deps: Pick<EndpointDeps, 'urlGuard'>, text: string): Promise<string> {
  const url = canonicalUrl(text);
  if (url === undefined) throw refusedUrl('must be an absolute URL');
  const refusal = await deps.urlGuard.check(url);
  if (refusal !== undefined) throw refusedUrl(refusal);
  return url;
}

/**
 * Registers an endpoint after the SSRF guard accepted its URL; the secret is returned once. An
 * account that has `endpointsPerAccount` endpoints already is refused with a conflict.
 */
export async function registerEndpoint(
  deps: EndpointDeps,
  accountId: string,
  input: { url: string; events: EventType[]; description?: string; rate_limit?: number },
): Promise<WebhookEndpoint> {
  const now = new Date(deps.clock.now()).toISOString();
  const endpoint: WebhookEndpoint = {
    id: newEndpointId(),
    accountId,
    url: await acceptedUrl(deps, input.url),
    events: input.events,
    description: input.description ?? '',
    status: 'enabled',
    rateLimit: input.rate_limit,
    secret: generateSigningSecret(),
    createdAt: now,
    updatedAt: now,
  };
  if (!(await deps.endpoints.create(endpoint, deps.endpointsPerAccount))) {
    throw new ServiceError(
      'conflict',
      `An account can have at most ${deps.endpointsPerAccount} webhook endpoints; delete one to register another`,
    );
  }
  return endpoint;
}

export interface EndpointListFilter extends CreatedWindow {
  status?: EndpointStatus;
}

/**
 * One page of the account's endpoints, newest first. An account has at most
 * `endpointsPerAccount` of them: the list reads them all in one Query (a page of DynamoDB's), and
 * its total is exact.
 */
export async function listEndpoints(
  deps: Pick<WebhookDependencies, 'endpoints'>,
  accountId: string,
  filter: EndpointListFilter,
  request: PageRequest,
): Promise<PageOf<WebhookEndpoint>> {
  assertWindow(filter, { after: 'created_after', before: 'created_before' });
  return deps.endpoints.pageForAccount(
    accountId,
    (endpoint) =>
      (filter.status === undefined || endpoint.status === filter.status) &&
      isInWindow(endpoint.createdAt, filter),
    request,
  );
}

export async function getEndpoint(
  deps: Pick<WebhookDependencies, 'endpoints'>,
  accountId: string,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const endpoint = await deps.endpoints.get(accountId, endpointId);
  if (endpoint === undefined) throw endpointNotFound();
  return endpoint;
}

export async function deleteEndpoint(
  deps: Pick<WebhookDependencies, 'endpoints'>,
  accountId: string,
  endpointId: string,
): Promise<void> {
  if (!(await deps.endpoints.delete(accountId, endpointId))) throw endpointNotFound();
}

export interface EndpointPatch {
  url?: string;
  events?: EventType[];
  description?: string;
  status?: EndpointStatus;
  rate_limit?: number | null;
}

/** Deliveries sent again by the request that enables an endpoint; the sweeper sends the rest. */
export const resumedOnEnable = 100;

/**
 * PATCH /v1/webhooks/{id}: changes what is given. A new URL passes the SSRF guard again and
 * starts a fresh failure streak. Disabling takes effect for every attempt that has not read the
 * endpoint yet (attempt-delivery.ts); enabling sends the deliveries that waited, once each.
 */
export async function updateEndpoint(
  deps: Pick<WebhookDependencies, 'endpoints' | 'deliveries' | 'queue' | 'urlGuard' | 'clock'>,
  accountId: string,
  endpointId: string,
  patch: EndpointPatch,
): Promise<WebhookEndpoint> {
  const url = patch.url === undefined ? undefined : await acceptedUrl(deps, patch.url);
  // The status move is computed from the status read, and stored only while it still holds; a
  // concurrent move makes us read again (once), so two PATCHes never both "enable".
  for (let round = 0; round < 2; round++) {
    const current = await deps.endpoints.get(accountId, endpointId);
    if (current === undefined) throw endpointNotFound();
    const now = deps.clock.now();
    const moving = patch.status !== undefined && patch.status !== current.status;
    const change: EndpointChange = {
      url,
      events: patch.events,
      description: patch.description,
      rateLimit: patch.rate_limit,
      status: !moving
        ? undefined
        : patch.status === 'enabled'
          ? { to: 'enabled' }
          : { to: 'disabled', reason: 'manual', at: now },
      resetFailing:
        (url !== undefined && url !== current.url) || (moving && patch.status === 'enabled'),
      updatedAt: new Date(now).toISOString(),
    };
    const result = await deps.endpoints.update(accountId, endpointId, change, current.status);
    if (result.outcome === 'not_found') throw endpointNotFound();
    if (result.outcome === 'status_changed') continue;
    if (change.status?.to === 'enabled') await resumePaused(deps, result.endpoint, resumedOnEnable);
    return result.endpoint;
  }
  throw new ServiceError(
    'conflict',
    'This endpoint is being changed by another request; try again',
  );
}

/**
 * Sends again, once each and oldest first, up to `limit` deliveries that waited while the endpoint
 * was disabled: each goes out now as the attempt it was due for, however many of its ladder's
 * times passed meanwhile, and the ladder goes on from its outcome. Returns how many it found.
 */
export async function resumePaused(
  deps: Pick<WebhookDependencies, 'deliveries' | 'queue' | 'clock'>,
  endpoint: WebhookEndpoint,
  limit: number,
): Promise<number> {
  const paused = await deps.deliveries.listPaused(endpoint.id, limit);
  const now = deps.clock.now();
  // Conditional (paused → pending): of two resumers racing for one delivery, one sends it.
  const resumed = await Promise.all(
    paused.map(async (delivery) =>
      (await deps.deliveries.resume(delivery.id, now)) ? delivery : undefined,
    ),
  );
  const messages = resumed.flatMap((delivery) =>
    delivery === undefined
      ? []
      : [{ deliveryId: delivery.id, attempt: delivery.nextAttempt, delaySeconds: 0 }],
  );
  await queueDueAttempts(deps, messages, { endpointId: endpoint.id, resumed: messages.length });
  return paused.length;
}

/** Issues a new secret; the old one keeps signing (alongside) for 24 hours. */
export async function rotateEndpointSecret(
  deps: Pick<WebhookDependencies, 'endpoints' | 'clock'>,
  accountId: string,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const rotated = await deps.endpoints.rotateSecret(
    accountId,
    endpointId,
    generateSigningSecret(),
    deps.clock.now() + previousSecretLifetimeMs,
  );
  if (rotated === undefined) throw endpointNotFound();
  return rotated;
}

/** The secrets that sign at `now`, newest first: the current one, and the previous one while it lasts. */
export function signingSecrets(endpoint: WebhookEndpoint, now: number): [string, ...string[]] {
  return endpoint.previousSecret !== undefined && (endpoint.previousSecretExpiresAt ?? 0) > now
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret];
}
