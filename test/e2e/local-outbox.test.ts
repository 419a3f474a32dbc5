import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { type LocalService, startLocalService } from '../support/local-service.js';
import { AccountClient, uniqueEmail } from './accounts-support.js';

/**
 * What `npm start` tells a developer, and the outbox on the service's clock: after
 * `POST /_local/clock` a code's `sent_at` is the time the service gave it — the one its expiry
 * counts from — not the machine's.
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

interface OutboxEntry {
  sent_at: string;
}

describe('npm start', () => {
  it('prints where the API reference, the outbox and the first steps are', async () => {
    // The start-up lines follow the one the service is waited for: wait for the last of them.
    const printed = await eventually(async () =>
      service.output().includes('First steps: docs/guide.md\n') ? service.output() : undefined,
    );
    expect(printed).toContain(`API reference at ${service.origin}/docs\n`);
    expect(printed).toContain(`at ${service.origin}/_local/outbox?to=<email or phone>\n`);
    expect(printed).toContain('First steps: docs/guide.md\n');
  });
});

describe('the outbox', () => {
  it('stamps a message with the service clock, moved or not', async () => {
    const movedTo = await client.advanceClock(2 * 60 * 60);
    const email = uniqueEmail();
    const signup = await client.api.POST('/auth/signup', {
      body: { name: 'Ada Lovelace', email, password: 'correct horse battery' },
    });
    expect(signup.response.status).toBe(201);
    await client.codeFor(email);
    const after = await client.advanceClock(0);

    const response = await fetch(`${service.origin}/_local/outbox?to=${encodeURIComponent(email)}`);
    const [message] = ((await response.json()) as { data: OutboxEntry[] }).data;
    const sentAt = Date.parse(message?.sent_at ?? '');
    expect(sentAt).toBeGreaterThanOrEqual(movedTo);
    expect(sentAt).toBeLessThanOrEqual(after);
  });
});
