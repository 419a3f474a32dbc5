import { log } from '../../log.js';
import type { AttemptMessage } from './model.js';
import type { EnqueuedAttempt, WebhookDependencies } from './ports.js';

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

/**
 * Queues attempts of deliveries that are stored as due already. A queue failure fails nothing:
 * the sweeper queues overdue deliveries, so it is logged (with `context`) and left to it.
 */
export async function queueDueAttempts(
  deps: Pick<WebhookDependencies, 'queue'>,
  messages: EnqueuedAttempt[],
  context: Record<string, unknown>,
): Promise<void> {
  if (messages.length === 0) return;
  try {
    await deps.queue.enqueue(messages);
  } catch (error) {
    log.warn('attempts not queued; the sweeper will pick them up', { ...context, error });
  }
}
