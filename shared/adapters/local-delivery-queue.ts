import { randomUUID } from 'node:crypto';
import { systemClock } from '../domain/clock.js';
import type { AttemptMessage } from '../domain/webhooks/model.js';
import type { DeliveryQueue, EnqueuedAttempt, RetryScheduler } from '../domain/webhooks/ports.js';
import { functionTimeoutSeconds, lambdaContext } from '../local/lambda-context.js';
import { log } from '../log.js';
import { attemptMessageCodec } from './attempt-message.js';
import {
  batchItemFailures,
  type LocalMessage,
  type QueueWorker,
  queueMemoryMb,
  sqsRecord,
} from './local-sqs.js';

export interface LocalQueueOptions {
  /** Records per invocation (the event source mapping's batch size). @default 10 */
  batchSize?: number;
  /** Invocations running at once (the event source's maximum concurrency). @default 4 */
  maxConcurrency?: number;
  /** How long a failed record stays invisible before it is received again. @default 5000 */
  visibilityTimeoutMs?: number;
  /** Receives before a message goes to the (logged) dead-letter queue. @default 5 */
  maxReceiveCount?: number;
}

/**
 * The local runtime's stand-in for the SQS delivery queue and its Lambda event source: delays
 * are timers, records go to the worker in batches shaped like real SQSEvents, records named in
 * `batchItemFailures` (or a whole batch whose invocation threw) come back after the visibility
 * timeout, like SQS redelivers them.
 */
export class LocalDeliveryQueue implements DeliveryQueue {
  private readonly ready: LocalMessage[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = 0;
  private stopped = false;
  private pumpScheduled = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    private readonly worker: QueueWorker,
    private readonly options: LocalQueueOptions = {},
  ) {}

  async enqueue(messages: EnqueuedAttempt[]): Promise<void> {
    // Messages sent together with the same delay become visible together: one timer each group,
    // so they reach the worker in one batch however slow the event loop is.
    const byDelay = new Map<number, LocalMessage[]>();
    for (const message of messages) {
      const delayMs = Math.min(900, Math.max(0, message.delaySeconds)) * 1000;
      const group = byDelay.get(delayMs) ?? [];
      group.push({
        messageId: randomUUID(),
        body: attemptMessageCodec.encode(message),
        sentAt: Date.now(),
        receiveCount: 0,
      });
      byDelay.set(delayMs, group);
    }
    for (const [delayMs, group] of byDelay) this.deliverLater(group, delayMs);
  }

  /** Resolves once nothing is queued, delayed or running (benchmarks wait on it). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private isIdle(): boolean {
    return (
      this.ready.length === 0 && this.timers.size === 0 && this.running === 0 && !this.pumpScheduled
    );
  }

  private deliverLater(messages: LocalMessage[], delayMs: number): void {
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
    });
  }

  private pump(): void {
    const maxConcurrency = this.options.maxConcurrency ?? 4;
    while (!this.stopped && this.running < maxConcurrency && this.ready.length > 0) {
      const batch = this.ready.splice(0, this.options.batchSize ?? 10);
      this.running += 1;
      void this.invoke(batch).finally(() => {
        this.running -= 1;
        this.pump();
        if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
  }

  private async invoke(batch: LocalMessage[]): Promise<void> {
    for (const message of batch) message.receiveCount += 1;
    const records = batch.map((message) => sqsRecord('local-delivery', message));
    let failedIds: Set<string>;
    try {
      const response = await this.worker(
        { Records: records },
        lambdaContext('deliverWebhook', queueMemoryMb, functionTimeoutSeconds.queue),
      );
      failedIds = new Set(batchItemFailures(response));
    } catch (error) {
      log.error('local delivery worker threw; the batch will be received again', { error });
      failedIds = new Set(batch.map((message) => message.messageId));
    }
    const again = batch.filter((message) => {
      if (!failedIds.has(message.messageId)) return false;
      if (message.receiveCount >= (this.options.maxReceiveCount ?? 5)) {
        log.error('delivery message moved to the dead-letter queue', { body: message.body });
        return false;
      }
      return true;
    });
    this.deliverLater(again, this.options.visibilityTimeoutMs ?? 5_000);
  }
}

/**
 * The local stand-in for EventBridge Scheduler: a timer per schedule that puts the message on
 * the local queue when due (by the system clock, which `POST /_local/clock` can move; a moved
 * clock leaves earlier timers as they are, and the sweeper picks up what became overdue).
 */
export class LocalRetryScheduler implements RetryScheduler {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly queue: DeliveryQueue) {}

  async scheduleAt(message: AttemptMessage, at: Date): Promise<void> {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.queue.enqueue([{ ...message, delaySeconds: 0 }]);
      },
      Math.max(0, at.getTime() - systemClock.now()),
    );
    timer.unref();
    this.timers.add(timer);
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
