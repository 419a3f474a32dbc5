import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoAccountContacts } from '../../shared/adapters/dynamo-account-contacts.js';
import { dynamoDeliveryRepository } from '../../shared/adapters/dynamo-deliveries.js';
import { dynamoEndpointLoadRepository } from '../../shared/adapters/dynamo-endpoint-loads.js';
import { dynamoFailureDigestRepository } from '../../shared/adapters/dynamo-failure-digests.js';
import { dynamoEndpointRepository } from '../../shared/adapters/dynamo-webhook-endpoints.js';
import { dynamoEventRepository } from '../../shared/adapters/dynamo-webhook-events.js';
import { dynamo } from '../../shared/adapters/dynamodb.js';
import { keys } from '../../shared/adapters/keys.js';
import { defaultRetryDelaysSeconds, webhookEndpointsPerAccount } from '../../shared/config.js';
import { ManualClock } from '../../shared/domain/clock.js';
import type { EmailMessage, Mailer } from '../../shared/domain/messages.js';
import { attemptDelivery } from '../../shared/domain/webhooks/attempt-delivery.js';
import { registerEndpoint } from '../../shared/domain/webhooks/endpoints.js';
import type {
  DeliveryQueue,
  EnqueuedAttempt,
  LadderMinuteRepository,
  RetryScheduler,
  SendOutcome,
  SignedRequest,
  WebhookDependencies,
  WebhookSender,
} from '../../shared/domain/webhooks/ports.js';
import { sweepDueMinute } from '../../shared/domain/webhooks/sweep-deliveries.js';

/** A receiver behind the sender port: records what it was sent, answers as told. */
export class FakeReceiver implements WebhookSender {
  readonly requests: SignedRequest[] = [];
  answer: (request: SignedRequest) => SendOutcome = () => ({ status: 200, latencyMs: 3 });

  async send(request: SignedRequest): Promise<SendOutcome> {
    this.requests.push(request);
    return this.answer(request);
  }
}

export class RecordingQueue implements DeliveryQueue {
  messages: EnqueuedAttempt[] = [];
  async enqueue(messages: EnqueuedAttempt[]): Promise<void> {
    this.messages.push(...messages);
  }
}

/** EventBridge Scheduler as the ladder uses it: the due minutes it was asked to wake at. */
export class RecordingScheduler implements RetryScheduler {
  wakes: number[] = [];
  async wakeAt(dueMinute: number): Promise<void> {
    this.wakes.push(dueMinute);
  }
}

/** The due minutes' marks, kept per harness (each test's clock starts at the same time). */
export class MemoryLadderMinutes implements LadderMinuteRepository {
  readonly claimed = new Set<number>();
  async claim(dueMinute: number): Promise<boolean> {
    if (this.claimed.has(dueMinute)) return false;
    this.claimed.add(dueMinute);
    return true;
  }
  async release(dueMinute: number): Promise<void> {
    this.claimed.delete(dueMinute);
  }
}

export class RecordingMailer implements Mailer {
  sent: EmailMessage[] = [];
  async send(message: EmailMessage): Promise<void> {
    this.sent.push(message);
  }
}

export interface Harness extends WebhookDependencies {
  clock: ManualClock;
  receiver: FakeReceiver;
  queue: RecordingQueue;
  scheduler: RecordingScheduler;
  ladderMinutes: MemoryLadderMinutes;
  mailer: RecordingMailer;
  /** The deliveries this harness created: its drain attempts no other test's. */
  created: Set<string>;
  endpointsPerAccount: number;
}

/**
 * Where every harness clock starts. In the future on purpose: items carry their TTL from this
 * clock, and DynamoDB Local does delete expired items, at moments of its own — a delivery written
 * with a past TTL could vanish between its claim and its record.
 */
export const testEpoch = Date.UTC(2099, 2, 1, 12, 0, 0);

export function harness(): Harness {
  const receiver = new FakeReceiver();
  const created = new Set<string>();
  return {
    endpoints: dynamoEndpointRepository,
    events: dynamoEventRepository,
    deliveries: {
      ...dynamoDeliveryRepository,
      async createMany(deliveries, options) {
        const made = await dynamoDeliveryRepository.createMany(deliveries, options);
        for (const delivery of made) created.add(delivery.id);
        return made;
      },
    },
    created,
    loads: dynamoEndpointLoadRepository,
    accounts: dynamoAccountContacts,
    queue: new RecordingQueue(),
    scheduler: new RecordingScheduler(),
    ladderMinutes: new MemoryLadderMinutes(),
    digests: dynamoFailureDigestRepository,
    sender: receiver,
    receiver,
    urlGuard: { check: async () => undefined },
    mailer: new RecordingMailer(),
    clock: new ManualClock(testEpoch),
    retryDelaysSeconds: defaultRetryDelaysSeconds,
    disableAfterDays: 5,
    endpointMaxInFlight: 10,
    endpointsPerAccount: webhookEndpointsPerAccount(),
  };
}

/** A user item with an email, as the accounts area stores it. */
export async function createAccount(accountId: string, email: string): Promise<void> {
  await dynamo().send(
    new PutCommand({
      TableName: process.env.TABLE_NAME,
      Item: { ...keys.user(accountId), id: accountId, email },
    }),
  );
}

let accountSeq = 0;

/** A new account (named after `label`) with one endpoint subscribed to `order.created`. */
export async function accountWithEndpoint(deps: Harness, label: string) {
  accountSeq += 1;
  const account = `usr_${label}${accountSeq}_${Date.now()}`;
  await createAccount(account, `${label}${accountSeq}@example.com`);
  const endpoint = await registerEndpoint(deps, account, {
    url: 'https://r.example/hook',
    events: ['order.created'],
  });
  return { account, endpoint };
}

/**
 * Plays the queue and the scheduler the way SQS and EventBridge would: takes the next message
 * due, moves the clock to it, and runs the worker (a ladder wake-up queues its minute's attempts
 * from the due index) — until nothing is left. Returns the clock time of each attempt's run.
 * Attempts of other tests' deliveries (the table is shared) are left alone.
 */
export async function drain(deps: Harness): Promise<number[]> {
  const runs: number[] = [];
  for (;;) {
    deps.queue.messages.sort((a, b) => a.delaySeconds - b.delaySeconds);
    const queued = deps.queue.messages.shift();
    if (queued !== undefined) {
      if (!deps.created.has(queued.deliveryId)) continue;
      deps.clock.advance(queued.delaySeconds * 1000);
      for (const waiting of deps.queue.messages) {
        waiting.delaySeconds = Math.max(0, waiting.delaySeconds - queued.delaySeconds);
      }
      runs.push(deps.clock.now());
      await attemptDelivery(deps, queued);
      continue;
    }
    deps.scheduler.wakes.sort((a, b) => a - b);
    const dueMinute = deps.scheduler.wakes.shift();
    if (dueMinute === undefined) return runs;
    deps.clock.advance(Math.max(0, dueMinute - deps.clock.now()));
    await sweepDueMinute(deps, { dueMinute });
  }
}
