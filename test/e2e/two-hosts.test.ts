import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../support/local-service.js';
import { startLocalService } from '../support/local-service.js';
import { AccountClient, type Answer } from './accounts-support.js';
import { type WebhookOwner, webhookOwner } from './webhooks-support.js';

/**
 * Two hosts (docs/deployment.md, "Custom domains"): with both custom domains configured, the
 * account, session, profile and OTP operations answer on {base_url}'s host only, webhook
 * registration and events on {api_base_url}'s only, and the other host answers 404 in the
 * envelope. The runtime serves both as API Gateway does, naming the domain a request was sent to
 * (`requestContext.domainName`); its own address stands for the stage's, which serves all.
 */

const accountsHost = 'accounts.example.test';
const apiHost = 'api.example.test';

let service: LocalService;
let client: AccountClient;
let owner: WebhookOwner;

beforeAll(async () => {
  service = await startLocalService({
    ACCOUNTS_DOMAIN_NAME: accountsHost,
    API_DOMAIN_NAME: apiHost,
  });
  client = new AccountClient(service);
  owner = await webhookOwner(client);
});

afterAll(async () => {
  await service?.stop();
});

/** A request sent to `host` (its Host header), the way a client reaches a custom domain. */
const on = (
  host: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<Answer> =>
  client.call(method, path, {
    ...options,
    headers: { ...options.headers, host },
    // Sent with node:http, which keeps the Host header (fetch writes its own).
    from: '127.0.0.1',
  });

const inboxUrl = () => `${service.inboxOrigin}/inbox/two-hosts-${Date.now()}`;

/** The 404 of the other host: the envelope, with the headers of every answer. */
function expectNotServedHere(answer: Answer, servedOn: string): void {
  expect(answer.status).toBe(404);
  expect(answer.body).toEqual({
    success: false,
    error: {
      code: 'not_found',
      message: `No operation serves this method and path on this host: it is served on https://${servedOn}/v1`,
      details: [],
    },
  });
  expect(answer.headers.get('x-request-id')).toMatch(/\S/);
  expect(answer.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
}

const registeredEndpoints = async (): Promise<number> => {
  const list = await on(apiHost, 'GET', '/webhooks', { token: owner.token });
  expect(list.status).toBe(200);
  return list.body.meta.total as number;
};

describe('two hosts', () => {
  it('serves sign-in on the accounts host and answers 404 for it on the API host, issuing no token', async () => {
    const credentials = { email: owner.email, password: owner.password };
    const onAccounts = await on(accountsHost, 'POST', '/auth/login', { body: credentials });
    expect(onAccounts.status).toBe(200);
    const onApi = await on(apiHost, 'POST', '/auth/login', { body: credentials });
    expectNotServedHere(onApi, accountsHost);
    expect(JSON.stringify(onApi.body)).not.toContain('access_token');
  });

  it('registers a webhook on the API host; the same valid token on the accounts host registers nothing', async () => {
    const before = await registeredEndpoints();
    const body = { url: inboxUrl(), events: ['order.created'] };
    const onAccounts = await on(accountsHost, 'POST', '/webhooks', { body, token: owner.token });
    expectNotServedHere(onAccounts, apiHost);
    expect(await registeredEndpoints()).toBe(before);

    const onApi = await on(apiHost, 'POST', '/webhooks', { body, token: owner.token });
    expect(onApi.status).toBe(201);
    expect(await registeredEndpoints()).toBe(before + 1);
  });

  it('refuses account changes on the API host with a valid token, and changes nothing', async () => {
    const update = await on(apiHost, 'PUT', '/profile/update', {
      body: { name: 'Mallory' },
      token: owner.token,
    });
    expectNotServedHere(update, accountsHost);
    const change = await on(apiHost, 'POST', '/auth/change-password', {
      body: { current_password: owner.password, new_password: 'a whole new passphrase' },
      token: owner.token,
    });
    expectNotServedHere(change, accountsHost);

    const profile = await on(accountsHost, 'GET', '/profile', { token: owner.token });
    expect(profile.status).toBe(200);
    expect(profile.body.data.name).not.toBe('Mallory');
    expect(await client.signsIn(owner.email, owner.password)).toBe(true);
  });

  it('answers the wrong host 404 before reading credentials: no token and a bad one alike', async () => {
    expectNotServedHere(await on(accountsHost, 'GET', '/webhooks'), apiHost);
    expectNotServedHere(
      await on(accountsHost, 'GET', '/webhooks', { token: 'not.a.token' }),
      apiHost,
    );
    // On its own host the same request is refused for its credentials.
    expect((await on(apiHost, 'GET', '/webhooks')).status).toBe(401);
  });

  it('decides by the host the request was sent to, never by a forwarding header', async () => {
    const before = await registeredEndpoints();
    // Headers no operation declares, so sent past the typed clients' contract check.
    const forged = await new Promise<{ status: number; body: string }>((answered, failed) => {
      const body = JSON.stringify({ url: inboxUrl(), events: ['order.created'] });
      const outgoing = request(`${service.baseUrl}/webhooks`, {
        method: 'POST',
        headers: {
          host: accountsHost,
          'x-forwarded-host': apiHost,
          forwarded: `host=${apiHost}`,
          authorization: `Bearer ${owner.token}`,
          'content-type': 'application/json',
        },
      });
      outgoing.on('error', failed);
      outgoing.on('response', (incoming) => {
        let text = '';
        incoming.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        incoming.on('end', () => answered({ status: incoming.statusCode ?? 0, body: text }));
      });
      outgoing.end(body);
    });
    expect(forged.status).toBe(404);
    expect(JSON.parse(forged.body).error.code).toBe('not_found');
    expect(await registeredEndpoints()).toBe(before);
  });

  it('serves the public documents on both hosts, and every operation on the stage address', async () => {
    for (const host of [accountsHost, apiHost]) {
      expect((await on(host, 'GET', '/.well-known/jwks.json')).status).toBe(200);
    }
    const onStage = await client.call('GET', '/webhooks', { token: owner.token });
    expect(onStage.status).toBe(200);
    const profile = await client.call('GET', '/profile', { token: owner.token });
    expect(profile.status).toBe(200);
  });
});
