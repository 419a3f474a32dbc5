import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { surfaceSizes, workQueueSizes } from '../deployment-sizes.js';
import { log } from '../log.js';
import { functionTimeoutSeconds, lambdaContext } from './lambda-context.js';

/** A queue worker as the local runtime invokes it: the deployed handler module's export. */
export type QueueWorker = (event: SQSEvent, context: Context) => Promise<unknown>;

export interface LocalMessage {
  messageId: string;
  body: string;
  sentAt: number;
  /** Receives so far: 1 on the first delivery, as SQS's ApproximateReceiveCount. */
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
function batchItemFailures(response: unknown): string[] {
  if (typeof response !== 'object' || response === null) return [];
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (!Array.isArray(failures)) return [];
  return failures
    .map((failure: { itemIdentifier?: unknown }) => failure.itemIdentifier)
    .filter((id): id is string => typeof id === 'string');
}

/**
 * Receives before the local dead-letter queue. More than the stack's queues allow
 * (`workQueueSizes.maxReceiveCount`, 5 receives 180 s apart: 15 minutes) because the local waits
 * start far shorter: 8 receives from 2 s doubling span about 4 minutes, which rides out an outage
 * of DynamoDB or SES the way SQS does (5 receives 2 s apart lost the work of a 10 s outage).
 */
const localMaxReceiveCount = 8;

/** The first local redelivery wait; SQS's is the queue's visibility timeout (180 s). */
const firstRedeliveryMs = 2_000;

export interface LocalQueueOptions {
  /** Records per invocation (the event source's batch size). @default workQueueSizes.batchSize */
  batchSize?: number;
  /** Invocations running at once. @default workQueueSizes.maxConcurrency */
  maxConcurrency?: number;
  /**
   * How long a failed record stays invisible before its second receive; each later wait is twice
   * the one before, up to the stack's visibility timeout (`workQueueSizes`, 180 s). @default 2000
   */
  visibilityTimeoutMs?: number;
  /** Receives before a message goes to the (logged) dead-letter queue. @default 8 */
  maxReceiveCount?: number;
}

export interface LocalQueueNaming {
  /** The queue's name, for the log lines; its local ARN ends in `local-<queueName>`. */
  queueName: string;
  /** The function its event source invokes (the Lambda context). */
  functionName: string;
  /** Whether a dead-lettered message's body may be logged (not when it names a person). */
  logBodies: boolean;
}

/**
 * The local runtime's stand-in for an SQS queue and the Lambda event source that feeds its worker
 * — the one used for the delivery, inbound and account-code queues. Messages sent together with
 * the same delay become visible together (one timer per delay group, so they reach the worker in
 * one batch however slow the event loop is); visible messages go to the worker in batches of up to
 * `batchSize` records shaped like SQS's, at most `maxConcurrency` invocations at once, always
 * after the sender's call has returned. A record named in `batchItemFailures`, or every record of
 * an invocation that throws, is received again after its visibility timeout, with its receive
 * count (1 on the first delivery) raised, until `maxReceiveCount`; then it goes to the logged
 * dead-letter queue. The waits double (2 s, 4 s, … at most the stack's 180 s): quick enough for a
 * developer to watch a retry, long enough to ride out an outage (docs/reliability.md).
 */
export class LocalQueue {
  private readonly ready: LocalMessage[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idleWaiters = new Set<() => void>();
  private running = 0;
  private pumpScheduled = false;
  private stopped = false;

  constructor(
    private readonly worker: QueueWorker,
    private readonly naming: LocalQueueNaming,
    private readonly options: LocalQueueOptions = {},
  ) {}

  /** Queues message bodies (SendMessage, SendMessageBatch), each visible after its delay. */
  protected send(messages: { body: string; delaySeconds?: number }[]): void {
    const byDelay = new Map<number, LocalMessage[]>();
    for (const { body, delaySeconds = 0 } of messages) {
      // SQS delays at most 15 minutes.
      const delayMs = Math.min(900, Math.max(0, delaySeconds)) * 1000;
      const group = byDelay.get(delayMs) ?? [];
      group.push({ messageId: randomUUID(), body, sentAt: Date.now(), receiveCount: 0 });
      byDelay.set(delayMs, group);
    }
    for (const [delayMs, group] of byDelay) this.visibleAfter(group, delayMs);
  }

  /**
   * Resolves true once nothing is queued, delayed or being worked on, or false after `limitMs` (a
   * message waiting out its visibility timeout after a failure must not hang the caller).
   */
  idle(limitMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    if (this.isIdle()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (settled: boolean) => {
        clearTimeout(timer);
        this.idleWaiters.delete(onIdle);
        resolve(settled);
      };
      const onIdle = () => done(true);
      const timer = Number.isFinite(limitMs) ? setTimeout(() => done(false), limitMs) : undefined;
      this.idleWaiters.add(onIdle);
    });
  }

  /** Drops what is waiting; invocations under way finish. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.ready.length = 0;
    this.notifyIfIdle();
  }

  private isIdle(): boolean {
    return (
      this.ready.length === 0 && this.timers.size === 0 && this.running === 0 && !this.pumpScheduled
    );
  }

  private notifyIfIdle(): void {
    if (this.isIdle()) for (const resolve of [...this.idleWaiters]) resolve();
  }

  private visibleAfter(messages: LocalMessage[], delayMs: number): void {
    if (this.stopped || messages.length === 0) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.ready.push(...messages);
      this.schedulePump();
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Messages that become visible together are received in one batch, as the poller would. */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
      this.notifyIfIdle();
    });
  }

  private pump(): void {
    const maxConcurrency = this.options.maxConcurrency ?? workQueueSizes.maxConcurrency;
    while (!this.stopped && this.running < maxConcurrency && this.ready.length > 0) {
      const batch = this.ready.splice(0, this.options.batchSize ?? workQueueSizes.batchSize);
      this.running += 1;
      void this.invoke(batch).finally(() => {
        this.running -= 1;
        this.pump();
        this.notifyIfIdle();
      });
    }
  }

  private async invoke(batch: LocalMessage[]): Promise<void> {
    const { queueName, functionName, logBodies } = this.naming;
    for (const message of batch) message.receiveCount += 1;
    let failedIds: Set<string>;
    try {
      const response = await this.worker(
        { Records: batch.map((message) => sqsRecord(`local-${queueName}`, message)) },
        lambdaContext(functionName, surfaceSizes.queue.memoryMb, functionTimeoutSeconds.queue),
      );
      failedIds = new Set(batchItemFailures(response));
    } catch (error) {
      log.error(`local ${queueName} worker threw; its batch will be received again`, { error });
      failedIds = new Set(batch.map((message) => message.messageId));
    }
    const maxReceiveCount = this.options.maxReceiveCount ?? localMaxReceiveCount;
    const firstWaitMs = this.options.visibilityTimeoutMs ?? firstRedeliveryMs;
    const again = new Map<number, LocalMessage[]>();
    for (const message of batch) {
      if (!failedIds.has(message.messageId)) continue;
      if (message.receiveCount >= maxReceiveCount) {
        log.error(`${queueName} message moved to the dead-letter queue`, {
          messageId: message.messageId,
          ...(logBodies ? { body: message.body } : {}),
        });
        continue;
      }
      const waitMs = Math.min(
        workQueueSizes.visibilityTimeoutSeconds * 1000,
        firstWaitMs * 2 ** (message.receiveCount - 1),
      );
      again.set(waitMs, [...(again.get(waitMs) ?? []), message]);
    }
    for (const [waitMs, messages] of again) this.visibleAfter(messages, waitMs);
  }
}
