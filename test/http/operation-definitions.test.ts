import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.js';
import { operation as listWebhooks } from '../../functions/webhooks/list-webhooks.operation.js';
import { apiHandler } from '../../shared/http/api-handler.js';
import { takesBearerToken } from '../../shared/http/operation.js';
import {
  itemFamiliesOf,
  readOnlyFamiliesOf,
  routesByEntry,
} from '../../shared/http/route-needs.js';
import { tableCounter } from '../support/operations.js';

const root = resolve(import.meta.dirname, '..', '..');

describe('the operation definitions', () => {
  it('each sit beside the handler they name as entry', () => {
    const misplaced = routes.filter(
      (route) =>
        !existsSync(resolve(root, route.entry)) ||
        !existsSync(resolve(root, route.entry.replace(/\.ts$/, '.operation.ts'))),
    );
    expect(misplaced.map((route) => route.name)).toEqual([]);
  });

  it('give every route that takes a Bearer token the published token keys to read, without listing them by hand', () => {
    const withoutKeys = [...routesByEntry(routes).values()].filter(
      (entryRoutes) =>
        entryRoutes.some((route) => route.surface === 'api' && takesBearerToken(route.auth)) &&
        !readOnlyFamiliesOf(entryRoutes).includes('accessTokenKeys') &&
        !itemFamiliesOf(entryRoutes).includes('accessTokenKeys'),
    );
    expect(withoutKeys.map(([route]) => route!.name)).toEqual([]);
  });

  it('give the signing seeds only to the routes that issue tokens, which publish their public keys', () => {
    const holders = routes.filter((route) => route.needs.secrets?.includes('JWT_SIGNING_KEYS'));
    expect(holders.map((route) => route.name).sort()).toEqual(
      ['login', 'refreshToken', 'verifyMfa', 'verifyOtp', 'verifySignupOtp', 'passkeyLogin'].sort(),
    );
    for (const route of holders) {
      expect(itemFamiliesOf([route]), route.name).toContain('accessTokenKeys');
    }
  });

  it('give every receiver the secret its calls are checked with, named once in its definition', () => {
    const receivers = routes.filter((route) => route.surface === 'function-url');
    expect(receivers.map((route) => [route.name, route.needs.secrets])).toEqual(
      receivers.map((route) => [route.name, [route.secret]]),
    );
  });

  it('refuse to build a handler for a user route that was given no way to authenticate', () => {
    // The types demand an authenticate for auth user; a cast around them fails at once.
    const edge = tableCounter as Parameters<typeof apiHandler<never, never, never, 'user'>>[1];
    expect(() => apiHandler(listWebhooks, edge, async () => ({}))).toThrow(/needs an authenticate/);
  });
});
