import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { AccountClient } from '../e2e/accounts-support.js';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService, useServiceTable } from '../support/local-service.js';

/**
 * Attacks on the SSRF guard through the URL of a webhook endpoint, against the service as
 * `npm start` runs it with private networks refused (as on AWS).
 */

let service: LocalService;
let client: AccountClient;

beforeAll(async () => {
  service = await startLocalService({ WEBHOOK_RETRY_DELAYS: '0' });
  client = new AccountClient(service);
  useServiceTable(service);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

/** IPv6 forms that reach an IPv4 address the guard refuses: loopback and the metadata service. */
const embeddedForms = [
  'https://[::ffff:0:7f00:1]/', // IPv4-translated (SIIT) 127.0.0.1
  'https://[0:0:0:0:ffff:0:7f00:1]/hook', // the same, uncompressed
  'https://[::ffff:0:a9fe:a9fe]/latest/meta-data/', // IPv4-translated 169.254.169.254
  'https://[::ffff:127.0.0.1]/', // IPv4-mapped loopback
  'https://[::ffff:a9fe:a9fe]/', // IPv4-mapped metadata, in hex
];

/**
 * Every other IPv6 form that carries an IPv4 address (RFC 6052, RFC 3056, RFC 4380 and the
 * deprecated compatible form), each hiding loopback, a private network, link-local or the
 * metadata service. A translator or relay on the way would deliver to the IPv4 address.
 */
const otherEmbeddings = [
  'https://[::127.0.0.1]/', // IPv4-compatible ::/96 (deprecated), loopback
  'https://[::a9fe:a9fe]/', // IPv4-compatible, metadata
  'https://[64:ff9b::10.0.0.1]/', // NAT64 well-known prefix 64:ff9b::/96, RFC 1918
  'https://[64:ff9b::a9fe:a9fe]/', // NAT64 well-known prefix, metadata
  'https://[64:ff9b:1::a9fe:101]/', // local-use NAT64 64:ff9b:1::/48, /96 layout, link-local
  // Local-use NAT64 with a /48 prefix (RFC 6052 §2.2): 127.0.0.1 sits in bits 48–63 and 72–87;
  // read as a /96 layout, the last 32 bits say 8.8.8.8.
  'https://[64:ff9b:1:7f00:0:100:808:808]/',
  'https://[64:ff9b:1:a9fe:a9:fe00:808:808]/', // the same layout, metadata
  'https://[2002:7f00:1::1]/', // 6to4 2002::/16, loopback
  'https://[2002:c0a8:101:0:808:808:808:808]/', // 6to4, 192.168.1.1
  'https://[2002:a9fe:a9fe::]/', // 6to4, metadata
  'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', // Teredo 2001::/32, client 127.0.0.1
];

const order = { order_id: 'ord_ssrf', status: 'placed', total: 1, currency: 'EUR' };

describe('webhook URLs an attacker shapes', { timeout: 60_000 }, () => {
  it('stores and uses the parsed URL, not the text as typed', async () => {
    const { tokens } = await client.verifiedAccount();
    // WHATWG URL reads the backslash as a path separator (host 8.8.8.8); a parser that reads
    // it as userinfo would connect to 127.0.0.1. Only the parsed form may be kept.
    const answer = await client.post(
      '/webhooks',
      { url: 'https://8.8.8.8\\@127.0.0.1/', events: ['order.created'] },
      tokens.access_token,
    );
    expect(answer.status).toBe(201);
    expect(answer.body.data.url).toBe('https://8.8.8.8/@127.0.0.1/');
    const dotted = await client.post(
      '/webhooks',
      { url: 'https://8.8.8.8:443/a/./b/../c?x=1#fragment', events: ['order.created'] },
      tokens.access_token,
    );
    expect(dotted.body.data.url).toBe('https://8.8.8.8/a/c?x=1');
    const stored = await client.call('GET', `/webhooks/${answer.body.data.id}`, {
      token: tokens.access_token,
    });
    expect(stored.body.data.url).toBe('https://8.8.8.8/@127.0.0.1/');
  });

  it('refuses every IPv6 form embedding a loopback, private, link-local or metadata address at registration', async () => {
    const { tokens } = await client.verifiedAccount();
    for (const url of [...embeddedForms, ...otherEmbeddings]) {
      const answer = await client.post(
        '/webhooks',
        { url, events: ['order.created'] },
        tokens.access_token,
      );
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.details, url).toEqual([
        { field: 'url', message: expect.stringMatching(/public address/) },
      ]);
    }
  });

  it('refuses them on PATCH too, and stores a changed URL parsed', async () => {
    const { tokens } = await client.verifiedAccount();
    const registered = await client.post(
      '/webhooks',
      { url: 'https://8.8.8.8/hook', events: ['order.created'] },
      tokens.access_token,
    );
    const path = `/webhooks/${registered.body.data.id}`;
    for (const url of [...embeddedForms, ...otherEmbeddings]) {
      const answer = await client.call('PATCH', path, {
        token: tokens.access_token,
        body: { url },
      });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.details, url).toEqual([
        { field: 'url', message: expect.stringMatching(/public address/) },
      ]);
    }
    const changed = await client.call('PATCH', path, {
      token: tokens.access_token,
      body: { url: 'https://8.8.4.4\\@169.254.169.254/' },
    });
    expect(changed.body.data.url).toBe('https://8.8.4.4/@169.254.169.254/');
  });

  it('refuses them at the attempt, for endpoints stored before the guard knew them', async () => {
    const { tokens } = await client.verifiedAccount();
    const accountId = tokens.user.id;
    const stored = [
      'https://[::ffff:0:7f00:1]/',
      'https://[64:ff9b:1:7f00:0:100:808:808]/',
      'https://[2002:a9fe:a9fe::]/latest/meta-data/',
    ];
    const ids = stored.map((_, index) => `whk_storedbeforethefix${index}`);
    for (const [index, url] of stored.entries()) {
      await dynamoEndpointRepository.create(
        {
          id: ids[index]!,
          accountId,
          url,
          events: ['order.created'],
          secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
          description: '',
          status: 'enabled',
          createdAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
        },
        20,
      );
    }

    const published = await client.post('/events', {
      type: 'order.created',
      account_id: accountId,
      data: order,
    });
    expect(published.body.data.delivery_count).toBe(stored.length);

    for (const id of ids) {
      const attempt = await eventually(async () => {
        const list = await client.call('GET', `/webhooks/${id}/deliveries`, {
          token: tokens.access_token,
        });
        return list.body.data[0]?.attempts[0];
      });
      expect(attempt, id).toMatchObject({ outcome: 'failed', response_status: null });
      expect(attempt.error, id).toMatch(/^refused: the URL must resolve to a public address/);
    }
  });
});
