import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, dataOf } from '../../shared/http/client/api-client.js';
import type { ArrivalView } from '../../shared/local/webhook-inbox.js';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient } from './accounts-support.js';
import { webhookOwner } from './webhooks-support.js';

/**
 * A newcomer's first webhook: on a fresh `npm start` — no certificate, no
 * WEBHOOK_ALLOW_PRIVATE_NETWORK, no NODE_EXTRA_CA_CERTS — the local HTTPS inbox is registered as
 * an endpoint, a test event arrives there signed, and the inbox says both signatures verify.
 */

let service: LocalService;
let client: AccountClient;

beforeAll(async () => {
  service = await startLocalService();
  client = new AccountClient(service);
});

afterAll(async () => {
  await service?.stop();
});

const arrivals = async (name: string): Promise<ArrivalView[]> =>
  (
    (await (await fetch(`${service.origin}/_local/inbox/${name}`)).json()) as {
      data: ArrivalView[];
    }
  ).data;

/** Waits until the inbox holds `count` arrivals; answers them, newest first. */
const arrived = (name: string, count: number) =>
  eventually(async () => {
    const found = await arrivals(name);
    return found.length >= count ? found : undefined;
  });

describe('the local webhook inbox', () => {
  it('receives a verified test event at an endpoint registered with no setting at all', async () => {
    const owner = await webhookOwner(client);
    const url = `${service.inboxOrigin}/inbox/demo`;
    const registered = await client.api.POST('/webhooks', {
      headers: bearer(owner.token),
      body: { url, events: ['order.created'] },
    });
    expect(registered.response.status).toBe(201);
    const endpointId = registered.data!.data.id;

    const sent = await client.api.POST('/webhooks/{id}/test', {
      params: { path: { id: endpointId } },
      headers: bearer(owner.token),
    });
    expect(sent.response.status).toBe(200);

    const [arrival] = await arrived('demo', 1);
    expect(arrival).toMatchObject({
      event_type: 'webhook.test',
      answered_status: 200,
      signatures: {
        endpoint_ids: [endpointId],
        x_service_signature: 'verified',
        webhook_signature: 'verified',
      },
    });
    expect(arrival?.event_id).toMatch(/^evt_/);
    // The raw body is what the signature covers: a receiver's own check agrees.
    const secret = registered.data!.data.secret;
    expect(createHmac('sha256', secret).update(arrival!.raw_body).digest('hex')).toBe(
      arrival?.headers['x-service-signature'],
    );
  });

  it('answers with a chosen status, so a failing receiver can be watched', async () => {
    const owner = await webhookOwner(client);
    const { id: endpointId } = await dataOf(
      client.api.POST('/webhooks', {
        headers: bearer(owner.token),
        body: { url: `${service.inboxOrigin}/inbox/team+failing`, events: ['order.created'] },
      }),
    );
    const ofEndpoint = { params: { path: { id: endpointId } }, headers: bearer(owner.token) };
    const failing = await fetch(`${service.origin}/_local/inbox/team+failing`, {
      method: 'PUT',
      body: JSON.stringify({ status: 503 }),
    });
    expect(failing.status).toBe(200);

    await dataOf(client.api.POST('/webhooks/{id}/test', ofEndpoint));
    const [arrival] = await arrived('team+failing', 1);
    expect(arrival?.answered_status).toBe(503);
    const deliveries = await eventually(async () => {
      const listed = await dataOf(client.api.GET('/webhooks/{id}/deliveries', ofEndpoint));
      return listed[0]?.attempts.length === 1 ? listed : undefined;
    });
    expect(deliveries[0]).toMatchObject({
      status: 'pending',
      attempts: [{ outcome: 'failed', response_status: 503 }],
    });
  });

  it('lists the inboxes as JSON for a script, and as a page for a browser', async () => {
    const owner = await webhookOwner(client);
    const { id: endpointId } = await dataOf(
      client.api.POST('/webhooks', {
        headers: bearer(owner.token),
        body: { url: `${service.inboxOrigin}/inbox/listed`, events: ['order.created'] },
      }),
    );
    await dataOf(
      client.api.POST('/webhooks/{id}/test', {
        params: { path: { id: endpointId } },
        headers: bearer(owner.token),
      }),
    );
    await arrived('listed', 1);

    const listed = {
      name: 'listed',
      url: `${service.inboxOrigin}/inbox/listed`,
      answers_with: 200,
    };
    for (const accept of [undefined, 'application/json']) {
      const response = await fetch(`${service.origin}/_local/inbox`, {
        headers: accept === undefined ? {} : { accept },
      });
      expect(response.status, `Accept: ${accept}`).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { success: boolean; data: unknown[] };
      expect(body.success).toBe(true);
      expect(body.data).toContainEqual(listed);
    }

    const page = await fetch(`${service.origin}/_local/inbox`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('href="/_local/inbox/listed"');
  });

  it('refuses a status it cannot answer with', async () => {
    const refused = await fetch(`${service.origin}/_local/inbox/demo`, {
      method: 'PUT',
      body: JSON.stringify({ status: 42 }),
    });
    expect(refused.status).toBe(400);
  });

  it('lets only the inbox past the SSRF guard: other private URLs stay refused', async () => {
    const owner = await webhookOwner(client);
    const refused = await client.api.POST('/webhooks', {
      headers: bearer(owner.token),
      body: { url: 'https://localhost:1/inbox/demo', events: ['order.created'] },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.details).toEqual([
      { field: 'url', message: expect.stringMatching(/^url must resolve to a public address/) },
    ]);
  });
});
