import { deliveryQueueCodec } from '../adapters/attempt-message.js';
import { deliveryWorkerSizes } from '../deployment-sizes.js';
import { systemClock } from '../domain/clock.js';
import type { LadderWake } from '../domain/webhooks/model.js';
import type { DeliveryQueue, EnqueuedAttempt, RetryScheduler } from '../domain/webhooks/ports.js';
import { LocalQueue, type LocalQueueOptions, type QueueWorker } from './local-queue.js';

/**
 * The local runtime's stand-in for the SQS delivery queue and its event source: attempts go to the
 * deliverWebhook handler (the module the stack deploys) in batches, after their delay.
 */
export class LocalDeliveryQueue extends LocalQueue implements DeliveryQueue {
  constructor(worker: QueueWorker, options: LocalQueueOptions = {}) {
    super(
      worker,
      { queueName: 'delivery', functionName: 'deliverWebhook', logBodies: true },
      { ...deliveryWorkerSizes, ...options },
    );
  }

  /** What a ladder schedule sends when it fires: its wake-up, as the message body. */
  wake(wake: LadderWake): void {
    this.send([{ body: deliveryQueueCodec.encode(wake) }]);
  }

  async enqueue(messages: EnqueuedAttempt[]): Promise<void> {
    this.send(
      messages.map((message) => ({
        body: deliveryQueueCodec.encode(message),
        delaySeconds: message.delaySeconds,
      })),
    );
  }
}

/**
 * The local stand-in for EventBridge Scheduler's one-time schedules of the retry ladder: one per
 * due minute (a second of the same minute is a no-op, as a ConflictException is to the adapter),
 * each putting its wake-up on the local queue once the service clock reaches the minute — checked
 * every `tickMs`, so moving the clock with `POST /_local/clock` fires what became due.
 */
export class LocalRetryScheduler implements RetryScheduler {
  private readonly pending = new Set<number>();
  private readonly ticker: NodeJS.Timeout;

  constructor(
    private readonly queue: LocalDeliveryQueue,
    tickMs = 250,
  ) {
    this.ticker = setInterval(() => this.fireDue(), tickMs);
    this.ticker.unref();
  }

  async wakeAt(dueMinute: number): Promise<void> {
    this.pending.add(dueMinute);
  }

  stop(): void {
    clearInterval(this.ticker);
    this.pending.clear();
  }

  private fireDue(): void {
    const now = systemClock.now();
    for (const dueMinute of this.pending) {
      if (dueMinute > now) continue;
      // ActionAfterCompletion DELETE: the schedule is gone once it fired.
      this.pending.delete(dueMinute);
      this.queue.wake({ dueMinute });
    }
  }
}
