import { log } from '../../log.js';
import { metrics } from '../metrics.js';
import type { AttemptMessage } from './model.js';
import type { EnqueuedAttempt, WebhookDependencies } from './ports.js';

/** SQS delays a message by at most 15 minutes; anything later goes through the scheduler. */
export const maxQueueDelaySeconds = 900;

const minuteMs = 60_000;

/** The start of the minute `at` falls in (epoch ms). */
export const minuteOf = (at: number): number => Math.floor(at / minuteMs) * minuteMs;

/**
 * Puts an attempt on its way for `dueAt`: on the queue (with a delay) when that is within the
 * queue's reach; else it waits on the due index, where it is stored already, for its minute's
 * wake-up — one one-time schedule per due minute, however many attempts fall in it.
 */
export async function scheduleAttempt(
  deps: Pick<WebhookDependencies, 'queue' | 'scheduler' | 'ladderMinutes' | 'clock'>,
  message: AttemptMessage,
  dueAt: number,
): Promise<void> {
  const delaySeconds = Math.max(0, Math.ceil((dueAt - deps.clock.now()) / 1000));
  if (delaySeconds <= maxQueueDelaySeconds) {
    await deps.queue.enqueue([{ ...message, delaySeconds }]);
  } else {
    await wakeLadderAt(deps, minuteOf(dueAt));
  }
}

/**
 * Makes sure the ladder wakes at `dueMinute`. Of every attempt due in that minute, one (the
 * minute's claim) creates the schedule; if it cannot, the claim is given back for the next
 * attempt of that minute to try, the failure is counted (`LadderWakeFailed`, which an alarm
 * watches), and the periodic sweep still queues the minute's attempts once they are overdue.
 */
export async function wakeLadderAt(
  deps: Pick<WebhookDependencies, 'scheduler' | 'ladderMinutes'>,
  dueMinute: number,
): Promise<void> {
  if (!(await deps.ladderMinutes.claim(dueMinute))) return;
  try {
    await deps.scheduler.wakeAt(dueMinute);
  } catch (error) {
    metrics.count('LadderWakeFailed', {});
    await deps.ladderMinutes.release(dueMinute).catch(() => undefined);
    throw error;
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
