import { useRetryScheduler } from '../adapters/eventbridge-retry-scheduler.js';
import {
  LocalDeliveryQueue,
  LocalRetryScheduler,
  type QueueWorker,
} from '../adapters/local-delivery-queue.js';
import { useDeliveryQueue } from '../adapters/sqs-delivery-queue.js';
import { log } from '../log.js';

/** How often the local runtime runs the sweeper (every 5 minutes on AWS). */
const sweepIntervalMs = 5_000;

export interface LocalWebhookDelivery {
  queue: LocalDeliveryQueue;
  stop(): void;
}

/**
 * Outbound delivery in the local runtime: the in-process queue feeding the deliverWebhook
 * handler, timers standing in for EventBridge Scheduler, and the sweepDeliveries handler on an
 * interval — the same handler modules the stack deploys.
 */
export function startLocalWebhookDelivery(
  worker: QueueWorker,
  sweeper: () => Promise<unknown>,
): LocalWebhookDelivery {
  const queue = new LocalDeliveryQueue(worker);
  const scheduler = new LocalRetryScheduler(queue);
  useDeliveryQueue(queue);
  useRetryScheduler(scheduler);
  let sweeping = false;
  const interval = setInterval(async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      await sweeper();
    } catch (error) {
      log.error('local sweeper failed', { error });
    } finally {
      sweeping = false;
    }
  }, sweepIntervalMs);
  interval.unref();
  return {
    queue,
    stop: () => {
      clearInterval(interval);
      queue.stop();
      scheduler.stop();
    },
  };
}
