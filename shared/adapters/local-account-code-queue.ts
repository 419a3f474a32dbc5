import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AccountCodeQueue, AccountCodeRequest } from '../domain/accounts/ports.js';
import { log } from '../log.js';
import { encodeAccountCodeRequest } from './account-code-message.js';
import type { QueueWorker } from './local-delivery-queue.js';

const queueArn = 'arn:aws:sqs:us-east-1:000000000000:local-account-code';

export interface LocalAccountCodeQueueOptions {
  /** How long a failed record waits before it is received again. @default 2000 */
  visibilityTimeoutMs?: number;
  /** Receives before a message is dropped to the (logged) dead-letter queue. @default 5 */
  maxReceiveCount?: number;
}

/**
 * The local runtime's stand-in for the account-code SQS queue and its event source: each message
 * goes to the sendAccountCode handler (the module the stack deploys) in a real-shaped SQSEvent,
 * after the request that queued it has answered; a record reported in `batchItemFailures`, or an
 * invocation that throws, comes back after the visibility timeout, as SQS would redeliver it.
 *
 * `idle()` lets the local endpoints wait for queued codes to be sent, so that reading
 * `/_local/outbox` right after forgotPassword still finds its code.
 */
export class LocalAccountCodeQueue implements AccountCodeQueue {
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = 0;
  private readonly idleWaiters = new Set<() => void>();
  private stopped = false;

  constructor(
    private readonly worker: QueueWorker,
    private readonly options: LocalAccountCodeQueueOptions = {},
  ) {}

  async request(work: AccountCodeRequest): Promise<void> {
    this.later(randomUUID(), encodeAccountCodeRequest(work), Date.now(), 1, 0);
  }

  /**
   * Resolves true once no message is waiting or being worked on, or false after `limitMs` (a
   * message waiting out its visibility timeout after a failure must not hang the caller).
   */
  idle(limitMs: number): Promise<boolean> {
    if (this.isIdle()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (settled: boolean) => {
        clearTimeout(timer);
        this.idleWaiters.delete(onIdle);
        resolve(settled);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(false), limitMs);
      this.idleWaiters.add(onIdle);
    });
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.notifyIfIdle();
  }

  private isIdle(): boolean {
    return this.timers.size === 0 && this.running === 0;
  }

  private notifyIfIdle(): void {
    if (this.isIdle()) for (const resolve of [...this.idleWaiters]) resolve();
  }

  private later(
    messageId: string,
    body: string,
    sentAt: number,
    receiveCount: number,
    delayMs: number,
  ) {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.running += 1;
      void this.invoke(messageId, body, sentAt, receiveCount).finally(() => {
        this.running -= 1;
        this.notifyIfIdle();
      });
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async invoke(messageId: string, body: string, sentAt: number, receiveCount: number) {
    const record: SQSRecord = {
      messageId,
      receiptHandle: `${messageId}#${receiveCount}`,
      body,
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: String(sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    };
    let failed: boolean;
    try {
      const response = (await this.worker({ Records: [record] } satisfies SQSEvent, context())) as
        | { batchItemFailures?: { itemIdentifier: string }[] }
        | undefined;
      failed = (response?.batchItemFailures ?? []).some((f) => f.itemIdentifier === messageId);
    } catch (error) {
      log.error('local account-code worker threw; the message will be received again', { error });
      failed = true;
    }
    if (!failed) return;
    if (receiveCount >= (this.options.maxReceiveCount ?? 5)) {
      log.error('account-code message moved to the dead-letter queue', { messageId });
      return;
    }
    this.later(
      messageId,
      body,
      sentAt,
      receiveCount + 1,
      this.options.visibilityTimeoutMs ?? 2_000,
    );
  }
}

function context(): Context {
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'sendAccountCode',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:sendAccountCode',
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/sendAccountCode',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
