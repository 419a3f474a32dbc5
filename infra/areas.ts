import type { Route } from '../shared/http/route-table.js';

/**
 * The service stacks by area: each holds the functions of its routes, their methods on the REST
 * API, their surfaces and their deploy alarms, so adding an operation changes the stack of its
 * area (and the API's deployment, which publishes the method) and no other. Accounts and OTP are
 * one subject but two stacks: together they held about 300 resources at production settings
 * (docs/deployment.md, "Stacks").
 */
export const areas = ['accounts', 'otp', 'webhooks', 'inbound'] as const;

export type Area = (typeof areas)[number];

/** An HTTP route's area, by the tag its definition gives it. */
const areaOfTag: Record<Extract<Route, { tag: string }>['tag'], Area> = {
  auth: 'accounts',
  profile: 'accounts',
  meta: 'accounts',
  otp: 'otp',
  webhooks: 'webhooks',
  events: 'webhooks',
  receivers: 'inbound',
};

/** A worker's area: that of the queue it consumes, or for a sweeper the queue it fills again. */
const areaOfQueue = { accountCode: 'accounts', delivery: 'webhooks', inbound: 'inbound' } as const;

export function areaOf(route: Route): Area {
  if (route.surface === 'api' || route.surface === 'function-url') return areaOfTag[route.tag];
  const queue =
    route.queue ??
    (route.needs.deliveryQueue ? 'delivery' : route.needs.inboundQueue ? 'inbound' : undefined);
  if (queue === undefined) {
    throw new Error(`${route.name}: a worker's area is that of its queue, and it names none`);
  }
  return areaOfQueue[queue];
}

/**
 * Each area creates the API resources of its own paths, under the API's root: two areas that
 * shared a first path segment would each create it, which CloudFormation refuses only at deploy.
 * Refused here, at synth.
 */
export function assertAreasOwnTheirPaths(routes: readonly Route[]): void {
  const owners = new Map<string, Area>();
  for (const route of routes) {
    if (route.surface !== 'api') continue;
    const first = route.path.split('/')[1] ?? '';
    const owner = owners.get(first);
    const area = areaOf(route);
    if (owner !== undefined && owner !== area) {
      throw new Error(
        `/${first} is served by the ${owner} and the ${area} areas: a path's first segment belongs to one area (infra/areas.ts)`,
      );
    }
    owners.set(first, area);
  }
}
