import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { functionTimeoutSeconds, lambdaContext } from '../local/lambda-context.js';
import { log } from '../log.js';

/**
 * What the local runtime's stand-ins for SQS and its Lambda event sources share: records and
 * invocation contexts shaped like the real ones, the batch-item-failure answer, and a queue that
 * hands each message to its worker on its own with SQS's redelivery.
 */

/** What the stack gives queue workers (infra/service-stack.ts, surface defaults). */
export const queueMemoryMb = 512;

/** A queue worker as the local runtime invokes it: the deployed handler module's export. */
export type QueueWorker = (event: SQSEvent, context: Context) => Promise<unknown>;

export interface LocalMessage {
  messageId: string;
  body: string;
  sentAt: number;
  receiveCount: number;
}

/** One record of an SQSEvent from the queue named `queueName`, as the event source builds it. */
export function sqsRecord(queueName: string, message: LocalMessage): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: `${message.messageId}#${message.receiveCount}`,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(message.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueName}`,
    awsRegion: 'us-east-1',
  };
}

/** The message ids a worker named in its `batchItemFailures` answer (ReportBatchItemFailures). */
export function batchItemFailures(response: unknown): string[] {
  if (typeof response !== 'object' || response === null) return [];
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (!Array.isArray(failures)) return [];
  return failures
    .map((failure: { itemIdentifier?: unknown }) => failure.itemIdentifier)
    .filter((id): id is string => typeof id === 'string');
}

export interface LocalMessageQueueOptions {
  /**
   * How long a failed record waits before it is received the second time; each later wait is
   * twice the one before, up to SQS's 180 s of the stack's queues. @default 2000
   */
  visibilityTimeoutMs?: number;
  /** Receives before a message is dropped to the (logged) dead-letter queue. @default 8 */
  maxReceiveCount?: number;
}

/** The stack's visibility timeout (six times a queue worker's 30 s): the longest local wait. */
const longestVisibilityMs = 180_000;

interface Naming {
  /** The queue's name, for the log lines; its local ARN ends in `local-<queueName>`. */
  queueName: string;
  /** The function its event source invokes (the Lambda context). */
  functionName: string;
  /** Whether a dead-lettered message's body may be logged (not when it names a person). */
  logBodies: boolean;
}

/**
 * A queue whose messages each go to the worker in their own SQSEvent, after the sender's call has
 * returned; a record reported in `batchItemFailures`, or an invocation that throws, comes back
 * after the visibility timeout, as SQS would redeliver it, until `maxReceiveCount`. The timeout
 * doubles with each receive (2 s, 4 s, … about 4 minutes over 8 receives): quick enough for a
 * developer to watch a retry, long enough to ride out an outage of DynamoDB or SES the way SQS
 * does on AWS (5 receives 180 s apart) — a fixed 2 s dead-lettered the work of an outage of 10 s.
 */
export class LocalMessageQueue {
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = 0;
  private readonly idleWaiters = new Set<() => void>();
  private stopped = false;

  constructor(
    private readonly worker: QueueWorker,
    private readonly naming: Naming,
    private readonly options: LocalMessageQueueOptions = {},
  ) {}

  /** Queues one message body (SendMessage). */
  protected send(body: string): void {
    this.later({ messageId: randomUUID(), body, sentAt: Date.now(), receiveCount: 1 }, 0);
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

  private later(message: LocalMessage, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.running += 1;
      void this.invoke(message).finally(() => {
        this.running -= 1;
        this.notifyIfIdle();
      });
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async invoke(message: LocalMessage): Promise<void> {
    const { queueName, functionName, logBodies } = this.naming;
    let failed: boolean;
    try {
      const response = await this.worker(
        { Records: [sqsRecord(`local-${queueName}`, message)] },
        lambdaContext(functionName, queueMemoryMb, functionTimeoutSeconds.queue),
      );
      failed = batchItemFailures(response).includes(message.messageId);
    } catch (error) {
      log.error(`local ${queueName} worker threw; the message will be received again`, { error });
      failed = true;
    }
    if (!failed) return;
    if (message.receiveCount >= (this.options.maxReceiveCount ?? 8)) {
      log.error(`${queueName} message moved to the dead-letter queue`, {
        messageId: message.messageId,
        ...(logBodies ? { body: message.body } : {}),
      });
      return;
    }
    const firstWaitMs = this.options.visibilityTimeoutMs ?? 2_000;
    this.later(
      { ...message, receiveCount: message.receiveCount + 1 },
      Math.min(longestVisibilityMs, firstWaitMs * 2 ** (message.receiveCount - 1)),
    );
  }
}
