import { type ItemFamily, itemFamilies } from '../adapters/keys.js';
import { secretNames } from '../config.js';
import { takesBearerToken } from './operation.js';
import type { Needs, Route } from './route-table.js';

/**
 * What the routes of one function need, together — read by the stack (which grants it and sets
 * the environment that goes with it) and by the local runtime (which holds each handler to it).
 */

/** The routes of one entry (one function), e.g. the messaging GET and POST. */
export function routesByEntry(all: readonly Route[]): Map<string, Route[]> {
  const byEntry = new Map<string, Route[]>();
  for (const route of all) byEntry.set(route.entry, [...(byEntry.get(route.entry) ?? []), route]);
  for (const [entry, shared] of byEntry) {
    if (new Set(shared.map((route) => route.surface)).size > 1) {
      throw new Error(`Routes sharing ${entry} must share a surface`);
    }
  }
  return byEntry;
}

/** What the routes of one function need, together. */
export function mergedNeeds(entryRoutes: readonly Route[]): Needs {
  // In one order whichever route names a secret first (the messaging GET and POST name theirs).
  const named = new Set(entryRoutes.flatMap((route) => route.needs.secrets ?? []));
  const secrets = secretNames.filter((name) => named.has(name));
  const any = (need: Exclude<keyof Needs, 'secrets' | 'items' | 'reads'>) =>
    entryRoutes.some((route) => route.needs[need] === true);
  return {
    email: any('email'),
    sms: any('sms'),
    deliveryQueue: any('deliveryQueue'),
    inboundQueue: any('inboundQueue'),
    accountCodeQueue: any('accountCodeQueue'),
    smsAllowList: any('smsAllowList'),
    passkeys: any('passkeys'),
    scheduler: any('scheduler'),
    secrets,
    items: itemFamiliesOf(entryRoutes),
    reads: readOnlyFamiliesOf(entryRoutes),
  };
}

/** `families` in the order of `itemFamilies`. */
const inFamilyOrder = (families: ReadonlySet<ItemFamily>): ItemFamily[] =>
  (Object.keys(itemFamilies) as ItemFamily[]).filter((family) => families.has(family));

/**
 * The item families a function may read and write: those its routes declare, plus what every
 * route of its kind touches — an API call counts its client's requests (`rateCounter`), a route
 * that takes a Bearer token checks the caller's session (`user`), and a function that holds the
 * signing seeds publishes their public keys (`accessTokenKeys`). Sorted in the order of
 * `itemFamilies`.
 */
export function itemFamiliesOf(entryRoutes: readonly Route[]): ItemFamily[] {
  const families = new Set<ItemFamily>();
  for (const route of entryRoutes) {
    for (const family of route.needs.items ?? []) families.add(family);
    if (route.surface === 'api') families.add('rateCounter');
    if (route.surface === 'api' && takesBearerToken(route.auth)) {
      families.add('user');
    }
    if (route.needs.secrets?.includes('JWT_SIGNING_KEYS')) families.add('accessTokenKeys');
  }
  return inFamilyOrder(families);
}

/**
 * The item families a function may only read: those its routes declare as `reads`, and the
 * published token keys for a route that takes a Bearer token — less what it may also write.
 */
export function readOnlyFamiliesOf(entryRoutes: readonly Route[]): ItemFamily[] {
  const writable = new Set(itemFamiliesOf(entryRoutes));
  const families = new Set<ItemFamily>();
  for (const route of entryRoutes) {
    for (const family of route.needs.reads ?? []) families.add(family);
    if (route.surface === 'api' && takesBearerToken(route.auth)) families.add('accessTokenKeys');
  }
  for (const family of writable) families.delete(family);
  return inFamilyOrder(families);
}
