import type { ApiRoute, Route } from '../shared/http/route-table.js';

/**
 * The service stacks by area: each holds the functions of its routes, their methods on the REST
 * API, their surfaces and their deploy alarms, so adding an operation changes the stack of its
 * area (and the API's deployment, which publishes the method) and no other. Accounts, passkeys and
 * OTP are one subject in three stacks: together they would hold about 400 resources at
 * production settings (docs/deployment.md, "Stacks").
 */
export const areas = ['accounts', 'passkeys', 'otp', 'webhooks', 'inbound'] as const;

export type Area = (typeof areas)[number];

/** An HTTP route's area, by the tag its definition gives it. */
const areaOfTag: Record<Extract<Route, { tag: string }>['tag'], Area> = {
  auth: 'accounts',
  passkeys: 'passkeys',
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
 * The areas that serve a branch of another area's first segment (`/<first>/<second>`): they create
 * the branch's resources, on the first segment's resource that the other area creates and hands
 * them. Everything else an area serves starts at a first segment of its own.
 */
export const branches: Partial<Record<Area, `/${string}/${string}`>> = {
  passkeys: '/auth/passkeys',
};

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** Where the resources of `route` begin that its area creates: its branch, or its first segment. */
const ownedPathOf = (route: ApiRoute): string =>
  Object.values(branches).find((branch) => under(route.path, branch)) ??
  `/${route.path.split('/')[1] ?? ''}`;

/**
 * Each area creates the API resources of its own paths: two areas that created the same one would
 * each create it, which CloudFormation refuses only at deploy. Refused here, at synth: a first
 * segment (or a branch) served by two areas, and a branch whose first segment no other area
 * serves. Answers each branch's trunk: its first segment, and the area that creates it.
 */
export function assertAreasOwnTheirPaths(
  routes: readonly Route[],
): Map<Area, { area: Area; path: string }> {
  const owners = new Map<string, Area>();
  for (const route of routes) {
    if (route.surface !== 'api') continue;
    const owned = ownedPathOf(route);
    const owner = owners.get(owned);
    const area = areaOf(route);
    if (owner !== undefined && owner !== area) {
      throw new Error(
        `${owned} is served by the ${owner} and the ${area} areas: a path's first segment, or a branch of it, belongs to one area (infra/areas.ts)`,
      );
    }
    owners.set(owned, area);
  }
  const trunks = new Map<Area, { area: Area; path: string }>();
  for (const [area, branch] of Object.entries(branches) as [Area, string][]) {
    if (owners.get(branch) !== area) continue;
    const first = `/${branch.split('/')[1]}`;
    const parent = owners.get(first);
    if (parent === undefined) {
      throw new Error(
        `${branch} is a branch of ${first}, which no area serves: the ${area} area would have nothing to hang it on (infra/areas.ts)`,
      );
    }
    trunks.set(area, { area: parent, path: first });
  }
  return trunks;
}
