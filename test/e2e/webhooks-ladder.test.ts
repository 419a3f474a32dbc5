import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, bearer, dataOf, successOf } from '../../shared/http/client/api-client.js';
import { eventually } from '../support/eventually.js';
import type { LocalService } from '../support/local-service.js';
import type { AccountClient } from './accounts-support.js';
import type { TestReceiver } from './webhooks-receiver.js';
import { order, startWebhookService, webhookOwner } from './webhooks-support.js';

/**
 * The retry ladder at scale through `npm start`: 200 deliveries to an endpoint that always
 * answers 500, on a ladder whose later steps are beyond SQS's 15 minutes (so EventBridge
 * Scheduler keeps them), with the service clock moved instead of waiting.
 */

const delaySeconds = 1000;
const deliveriesCount = 200;
const minuteMs = 60_000;
const dayMs = 24 * 60 * minuteMs;

let service: LocalService;
let client: AccountClient;
let api: ApiClient;
let receiver: TestReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ service, client, receiver, stop } = await startWebhookService({
    WEBHOOK_RETRY_DELAYS: `0,${delaySeconds},${delaySeconds}`,
    // Not what this suite measures (the isolation suite runs the deployed 250): 200 attempts at
    // once in one process kept a loaded machine's DynamoDB Local silent past the SDK's 3 s.
    LOCAL_DELIVERY_CONCURRENCY: '5',
  }));
  ({ api } = client);
}, 120_000);

afterAll(async () => {
  // What the service logged as errors, beside a failure: a 500 says no more than that.
  const errors = service
    ?.output()
    .split('\n')
    .filter((line) => line.includes('"level":"ERROR"'));
  if (errors !== undefined && errors.length > 0) console.error(errors.join('\n'));
  await stop?.();
});

/** CreateSchedule calls the Scheduler stand-in has had. */
async function createScheduleCalls(): Promise<number> {
  const response = await fetch(`${service.origin}/_local/faults`);
  const { data } = (await response.json()) as { data: { calls: { scheduler: { calls: number } } } };
  return data.calls.scheduler.calls;
}

describe('the retry ladder by due minute', { timeout: 900_000 }, () => {
  it('keeps 200 failing deliveries on the ladder with at most one schedule per due minute, and tells the owner in one digest', async () => {
    // An hour into a UTC day, so that every failure falls on one day.
    const now = await client.advanceClock(0);
    await client.advanceClock((Math.floor(now / dayMs) * dayMs + dayMs + 3_600_000 - now) / 1000);
    const owner = await webhookOwner(client);
    const endpoint = await dataOf(
      api.POST('/webhooks', {
        headers: bearer(owner.token),
        body: { url: `${receiver.origin}/fail-ladder`, events: ['order.created'] },
      }),
    );
    const lanes = 8;
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let index = lane; index < deliveriesCount; index += lanes) {
          await dataOf(
            api.POST('/events', {
              body: {
                type: 'order.created',
                account_id: owner.userId,
                data: { ...order, order_id: `ord_${index}` },
              },
            }),
          );
        }
      }),
    );
    // Walked by cursor, a page at a time, as a client reads a long list. Small pages, read only
    // as far as the first delivery still short of its attempts, every two seconds: the list
    // shares DynamoDB Local and the cores with 200 deliveries' attempts, and a page of 100 with
    // their attempt items has taken a loaded run past the API function's 10 s.
    const pageAfter = (cursor: string | null) =>
      successOf(
        api.GET('/webhooks/{id}/deliveries', {
          params: {
            path: { id: endpoint.id },
            query: { per_page: 25, ...(cursor === null ? {} : { cursor }) },
          },
          headers: bearer(owner.token),
        }),
      );
    /** Every delivery once each has made `attempts`; undefined at the first that has not. */
    const allMade = (attempts: number) =>
      eventually(async () => {
        await new Promise((resume) => setTimeout(resume, 2000));
        const listed: Awaited<ReturnType<typeof pageAfter>>['data'] = [];
        for (let cursor: string | null = null; ; ) {
          const page = await pageAfter(cursor);
          if (page.data.some((delivery) => delivery.attempts_made < attempts)) return undefined;
          listed.push(...page.data);
          cursor = page.meta.next_cursor;
          if (cursor === null) break;
        }
        return listed.length === deliveriesCount ? listed : undefined;
      }, 300);

    // Each step: past every due time of the next attempt, plus the minute it falls in.
    // A moved clock outlives the access token: sign in again after each step.
    const step = async () => {
      await client.advanceClock(delaySeconds + 120);
      owner.token = (await client.login(owner.email, owner.password)).access_token;
    };
    await allMade(1);
    await step();
    await allMade(2);
    await step();
    const done = await allMade(3);

    expect(done.every((delivery) => delivery.status === 'failed')).toBe(true);
    // Every attempt on the ladder's time: never before it, and late by no more than the clock
    // step the test took past it.
    // The next attempt falls due `delaySeconds` after the previous one was finished (its POST and
    // bookkeeping, seconds on a loaded machine): somewhere between the previous attempt's start
    // plus the delay and the next attempt's start. Every minute of that span may be its due minute.
    const dueMinutes = new Set<number>();
    for (const delivery of done) {
      const times = delivery.attempts.map((attempt) => Date.parse(attempt.attempted_at));
      expect(times).toHaveLength(3);
      for (let step = 1; step < times.length; step++) {
        const due = times[step - 1]! + delaySeconds * 1000;
        for (let minute = Math.floor(due / minuteMs); minute * minuteMs <= times[step]!; minute++) {
          dueMinutes.add(minute);
        }
        expect(times[step]).toBeGreaterThanOrEqual(due);
        expect(times[step]! - due).toBeLessThanOrEqual(180_000);
      }
    }
    // 400 scheduled attempts, at most one CreateSchedule per minute they may fall due in.
    const calls = await createScheduleCalls();
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(dueMinutes.size);

    // One email for the day's 200 failures, once the day is over.
    await client.advanceClock(dayMs / 1000);
    const digests = await eventually(async () => {
      const mails = (await client.outbox(owner.email)).filter((mail) =>
        mail.subject?.startsWith('Webhook deliveries failed'),
      );
      return mails.length > 0 ? mails : undefined;
    }, 120);
    expect(digests).toHaveLength(1);
    expect(digests[0]?.subject).toContain(`: ${deliveriesCount} to ${receiver.origin}/fail-ladder`);
    expect(digests[0]?.text).toContain(`order.created: ${deliveriesCount}`);
    expect(digests[0]?.text).toContain(`#/endpoints/${endpoint.id}?status=failed`);
  });
});
