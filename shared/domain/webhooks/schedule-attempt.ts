import type { AttemptMessage } from './model.js';
import type { WebhookDependencies } from './ports.js';

/** SQS delays a message by at most 15 minutes; anything later goes through the scheduler. */
export const maxQueueDelaySeconds = 900;

/**
 * Puts an attempt on its way for `dueAt`: on the queue (with a delay) when that is within the
 * queue's reach, else as a one-time schedule that sends the message to the queue at that time.
 */
export async function scheduleAttempt(
  deps: Pick<WebhookDependencies, 'queue' | 'scheduler' | 'clock'>,
  message: AttemptMessage,
  dueAt: number,
): Promise<void> {
  const delaySeconds = Math.max(0, Math.ceil((dueAt - deps.clock.now()) / 1000));
  if (delaySeconds <= maxQueueDelaySeconds) {
    await deps.queue.enqueue([{ ...message, delaySeconds }]);
  } else {
    await deps.scheduler.scheduleAt(message, new Date(dueAt));
  }
}
