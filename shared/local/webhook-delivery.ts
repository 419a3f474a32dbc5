import { useRetryScheduler } from '../adapters/eventbridge-retry-scheduler.js';
import { LocalDeliveryQueue, LocalRetryScheduler } from '../adapters/local-delivery-queue.js';
import type { QueueWorker } from '../adapters/local-sqs.js';
import { useDeliveryQueue } from '../adapters/sqs-delivery-queue.js';
import type { FaultSwitch } from './faults.js';
import { localScheduleIntervalMs, runPeriodically } from './periodic.js';

export interface LocalWebhookDelivery {
  queue: LocalDeliveryQueue;
  stop(): void;
}

/**
 * Outbound delivery in the local runtime: the in-process queue feeding the deliverWebhook
 * handler, timers standing in for EventBridge Scheduler, and the sweepDeliveries handler on an
 * interval — the same handler modules the stack deploys. Sending to the queue and scheduling go
 * through `faults`, so either can be made to fail as SQS or Scheduler would.
 */
export function startLocalWebhookDelivery(
  worker: QueueWorker,
  sweeper: () => Promise<unknown>,
  faults: FaultSwitch,
): LocalWebhookDelivery {
  const queue = new LocalDeliveryQueue(worker);
  const scheduler = new LocalRetryScheduler(queue);
  useDeliveryQueue(faults.deliveryQueue(queue));
  useRetryScheduler(faults.retryScheduler(scheduler));
  const stopSweeping = runPeriodically('delivery sweeper', sweeper, localScheduleIntervalMs);
  return {
    queue,
    stop: () => {
      stopSweeping();
      queue.stop();
      scheduler.stop();
    },
  };
}
