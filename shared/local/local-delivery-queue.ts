import { attemptMessageCodec } from '../adapters/attempt-message.js';
import { deliveryWorkerSizes } from '../deployment-sizes.js';
import { systemClock } from '../domain/clock.js';
import type { AttemptMessage } from '../domain/webhooks/model.js';
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

  async enqueue(messages: EnqueuedAttempt[]): Promise<void> {
    this.send(
      messages.map((message) => ({
        body: attemptMessageCodec.encode(message),
        delaySeconds: message.delaySeconds,
      })),
    );
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
