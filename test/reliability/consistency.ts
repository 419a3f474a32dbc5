import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { ReceivedRequest } from '../e2e/webhooks-receiver.js';
import type { Ledger } from './journeys.js';

/**
 * What "consistent" means for the stored state after faults or a crash, checked against the
 * table itself (a Scan of DynamoDB Local, read beside the service) and against what the clients
 * were told (the ledger) and what the receivers got:
 *
 * - accounts: every account has the email guard of its email, and of its verified phone, holding
 *   its id; every guard belongs to an account that holds that email or phone; every session and
 *   refresh token belongs to an existing account;
 * - every signup answered 201 has its account; every activation answered 200 an activated one;
 * - webhooks: every published event has all its deliveries (no fan-out left pending), every
 *   delivery is finished (delivered or failed) with attempts numbered 1, 2, … once each and at
 *   most one success, the last; every delivered delivery reached its receiver, and never with
 *   two successes recorded;
 * - inbound: every event acknowledged 200 is stored and processed.
 */
export interface ConsistencyReport {
  counts: {
    accounts: number;
    sessions: number;
    events: number;
    deliveries: number;
    delivered: number;
    failed: number;
    unfinished: number;
    attempts: number;
    inbound: number;
    /** Inbound events acknowledged and not yet processed. */
    inboundUnfinished: number;
    /**
     * Deliveries their receiver got more times than attempts were recorded: an attempt whose
     * outcome could not be stored is made again after its claim expires, with the same
     * webhook-id (at-least-once; receivers deduplicate on it). Counted once all the same.
     */
    receivedTwice: number;
  };
  problems: string[];
}

type Item = Record<string, unknown>;

/** Every item of the table (the suites' tables are small). */
export async function scanTable(endpoint: string, tableName: string): Promise<Item[]> {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  const items: Item[] = [];
  let cursor: Record<string, unknown> | undefined;
  try {
    do {
      const page = await client.send(
        new ScanCommand({ TableName: tableName, ExclusiveStartKey: cursor, ConsistentRead: true }),
      );
      items.push(...(page.Items ?? []));
      cursor = page.LastEvaluatedKey;
    } while (cursor !== undefined);
  } finally {
    client.destroy();
  }
  return items;
}

interface AttemptItem {
  attempt: number;
  outcome: 'succeeded' | 'failed';
}

/**
 * Holds the table, the ledger and what the receivers got to the rules above. `receivedAt(url)` is
 * what the receiver at that endpoint URL got, or undefined for a receiver nobody watches.
 */
export function checkConsistency(
  items: Item[],
  ledger: Ledger,
  receivedAt: (url: string) => ReceivedRequest[] | undefined,
  options: { expectFinished: boolean } = { expectFinished: true },
): ConsistencyReport {
  const problems: string[] = [];
  const byPk = new Map<string, Item[]>();
  for (const item of items) {
    const pk = String(item.pk);
    byPk.set(pk, [...(byPk.get(pk) ?? []), item]);
  }
  const one = (pk: string, sk = '#') => byPk.get(pk)?.find((item) => item.sk === sk);

  const accounts = items.filter(
    (item) => String(item.pk).startsWith('USER#') && item.sk === 'PROFILE',
  );
  const accountById = new Map(accounts.map((account) => [String(account.user_id), account]));
  for (const account of accounts) {
    const id = String(account.user_id);
    const guard = one(`EMAIL#${String(account.email)}`);
    if (guard?.user_id !== id) {
      problems.push(`account ${id} (${String(account.email)}) has no email guard of its own`);
    }
    if (typeof account.phone === 'string' && one(`PHONE#${account.phone}`)?.user_id !== id) {
      problems.push(`account ${id} has no phone guard for ${account.phone}`);
    }
  }
  for (const guard of items.filter((item) => /^(EMAIL|PHONE)#/.test(String(item.pk)))) {
    const [kind, value] = String(guard.pk).split(/#(.*)/s) as [string, string];
    const owner = accountById.get(String(guard.user_id));
    const holds = kind === 'EMAIL' ? owner?.email === value : owner?.phone === value;
    if (!holds) problems.push(`${kind.toLowerCase()} guard ${value} names no account holding it`);
  }
  const sessions = items.filter((item) => String(item.sk).startsWith('SESSION#'));
  for (const session of sessions) {
    const userId = String(session.pk).slice('USER#'.length);
    if (!accountById.has(userId))
      problems.push(`session ${String(session.sk)} of a missing account`);
  }
  for (const token of items.filter((item) => String(item.pk).startsWith('REFRESH#'))) {
    if (!accountById.has(String(token.user_id))) {
      problems.push(`refresh token of a missing account ${String(token.user_id)}`);
    }
  }

  const accountByEmail = new Map(accounts.map((account) => [String(account.email), account]));
  for (const email of ledger.signups) {
    if (!accountByEmail.has(email)) problems.push(`signup of ${email} answered 201 but no account`);
  }
  for (const [userId, { email }] of ledger.activated) {
    if (accountById.get(userId)?.email_verified !== true) {
      problems.push(`activation of ${email} answered 200 but the account is not active`);
    }
  }
  const events = items.filter((item) => String(item.pk).startsWith('EVENT#'));
  for (const event of events) {
    if (event.gsi2pk !== undefined && options.expectFinished) {
      problems.push(`event ${String(event.id)} still waits for its fan-out`);
    }
  }
  const deliveries = items.filter(
    (item) => String(item.pk).startsWith('DELIVERY#') && item.sk === '#',
  );
  /** Each delivery's attempts, items of their own in its partition (by pk), in number order. */
  const attemptItems = new Map<string, AttemptItem[]>();
  for (const item of items) {
    if (!String(item.pk).startsWith('DELIVERY#') || !String(item.sk).startsWith('ATTEMPT#')) {
      continue;
    }
    attemptItems.set(String(item.pk), [
      ...(attemptItems.get(String(item.pk)) ?? []),
      item as unknown as AttemptItem,
    ]);
  }
  const deliveriesOfEvent = new Map<string, Item[]>();
  for (const delivery of deliveries) {
    const eventId = String(delivery.event_id);
    deliveriesOfEvent.set(eventId, [...(deliveriesOfEvent.get(eventId) ?? []), delivery]);
  }
  for (const [eventId, { endpoints }] of ledger.published) {
    const found = (deliveriesOfEvent.get(eventId) ?? []).map((delivery) =>
      String(delivery.endpoint_id),
    );
    for (const endpoint of endpoints) {
      if (!found.includes(endpoint))
        problems.push(`event ${eventId} has no delivery to ${endpoint}`);
    }
  }
  const endpointUrls = new Map(
    items
      .filter((item) => String(item.sk).startsWith('ENDPOINT#'))
      .map((endpoint) => [String(endpoint.id), String(endpoint.url)]),
  );
  /** How many times each receiver got each event, by `event id|url`. */
  const receivedTimes = new Map<string, number>();
  for (const url of new Set(endpointUrls.values())) {
    const path = new URL(url).pathname;
    for (const request of receivedAt(url) ?? []) {
      if (request.path !== path) continue;
      const key = `${request.headers['webhook-id']}|${url}`;
      receivedTimes.set(key, (receivedTimes.get(key) ?? 0) + 1);
    }
  }
  let receivedTwice = 0;
  let delivered = 0;
  let failed = 0;
  let unfinished = 0;
  let attempts = 0;
  for (const delivery of deliveries) {
    const id = String(delivery.id);
    const recorded = [
      ...((delivery.attempts as AttemptItem[] | undefined) ?? []),
      ...(attemptItems.get(String(delivery.pk)) ?? []),
    ].sort((a, b) => a.attempt - b.attempt);
    attempts += recorded.length;
    const numbers = recorded.map((attempt) => attempt.attempt);
    if (numbers.some((number, index) => number !== index + 1)) {
      problems.push(`delivery ${id} has attempts numbered ${numbers.join(', ')}`);
    }
    const successes = recorded.filter((attempt) => attempt.outcome === 'succeeded').length;
    const url = endpointUrls.get(String(delivery.endpoint_id)) ?? '';
    const watched = url !== '' && receivedAt(url) !== undefined;
    const received = receivedTimes.get(`${String(delivery.event_id)}|${url}`) ?? 0;
    if (watched && received > recorded.length) receivedTwice += 1;
    if (successes > 1) problems.push(`delivery ${id} counts ${successes} successes`);
    if (delivery.status === 'delivered') {
      delivered += 1;
      if (recorded.at(-1)?.outcome !== 'succeeded') {
        problems.push(`delivery ${id} is delivered without a successful last attempt`);
      }
      if (watched && received === 0) {
        problems.push(`delivery ${id} is delivered but its receiver never got it`);
      }
    } else if (delivery.status === 'failed') {
      failed += 1;
      if (successes > 0) problems.push(`delivery ${id} failed after a success`);
    } else {
      unfinished += 1;
      if (options.expectFinished)
        problems.push(`delivery ${id} is still ${String(delivery.status)}`);
    }
  }

  const inbound = items.filter((item) => String(item.pk).startsWith('INBOUND#'));
  const inboundById = new Map(inbound.map((event) => [String(event.event_id), event]));
  let inboundUnfinished = 0;
  for (const eventId of ledger.inbound.keys()) {
    const stored = inboundById.get(eventId);
    if (stored === undefined) problems.push(`inbound event ${eventId} acknowledged but not stored`);
    else if (stored.status !== 'processed') {
      inboundUnfinished += 1;
      if (options.expectFinished) {
        problems.push(`inbound event ${eventId} is ${String(stored.status)}, not processed`);
      }
    }
  }

  return {
    counts: {
      accounts: accounts.length,
      sessions: sessions.length,
      events: events.length,
      deliveries: deliveries.length,
      delivered,
      failed,
      unfinished,
      attempts,
      inbound: inbound.length,
      inboundUnfinished,
      receivedTwice,
    },
    problems,
  };
}
