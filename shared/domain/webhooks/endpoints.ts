import { ServiceError } from '../errors.js';
import type { EventType } from '../event-types.js';
import { canonicalUrl } from './address-policy.js';
import { newEndpointId } from './ids.js';
import type { WebhookEndpoint } from './model.js';
import type { WebhookDependencies } from './ports.js';
import { generateSigningSecret } from './signing.js';

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
  new ServiceError('invalid_request', 'The webhook URL cannot receive deliveries', [
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
  input: { url: string; events: EventType[] },
): Promise<WebhookEndpoint> {
  const endpoint: WebhookEndpoint = {
    id: newEndpointId(),
    accountId,
    url: await acceptedUrl(deps, input.url),
    events: input.events,
    secret: generateSigningSecret(),
    createdAt: new Date(deps.clock.now()).toISOString(),
  };
  if (!(await deps.endpoints.create(endpoint, deps.endpointsPerAccount))) {
    throw new ServiceError(
      'conflict',
      `An account can have at most ${deps.endpointsPerAccount} webhook endpoints; delete one to register another`,
    );
  }
  return endpoint;
}

/** One page of the account's endpoints, newest first (an account has few: one Query reads all). */
export async function listEndpoints(
  deps: Pick<WebhookDependencies, 'endpoints'>,
  accountId: string,
  page: { page: number; perPage: number },
): Promise<{ items: WebhookEndpoint[]; total: number }> {
  const endpoints = (await deps.endpoints.listForAccount(accountId)).sort((a, b) =>
    b.createdAt.localeCompare(a.createdAt),
  );
  const start = (page.page - 1) * page.perPage;
  return { items: endpoints.slice(start, start + page.perPage), total: endpoints.length };
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
