import { log } from '../../log.js';
import { resumePaused } from './endpoints.js';
import type { Delivery, LadderWake } from './model.js';
import type { WebhookDependencies } from './ports.js';
import { fanOut, subscribersOf } from './publish-event.js';
import { maxQueueDelaySeconds } from './schedule-attempt.js';

/**
 * How overdue work must be before the sweeper steps in. The normal path (a queue message, a
 * schedule) gets this long to act first; duplicates the sweeper still causes are dropped by the
 * claim, so this only keeps them rare.
 */
export const sweepGraceMs = 60_000;

/** Items handled per page of a sweep. */
export const sweepBatchSize = 200;

/**
 * How long one sweep keeps queueing due attempts, page after page (the schedule function's
 * timeout is 60 s). A page is nine queries sent together and twenty SendMessageBatch calls, about
 * 0.1 s on AWS: a run queues some 2,000 overdue attempts a second until none is left — what
 * catches up a Scheduler outage (docs/webhooks.md, "The retry ladder").
 */
export const sweepBudgetMs = 40_000;

export interface SweepResult {
  requeued: number;
  fannedOut: number;
  /** Paused deliveries of re-enabled endpoints sent again. */
  resumed: number;
}

/**
 * The safety net: re-queues deliveries whose next attempt (or an expired claim) is overdue,
 * finishes event fan-outs that were interrupted, and sends the paused deliveries of re-enabled
 * endpoints that the enabling request did not (too many, a crash, or a delivery paused at the
 * very moment of the enabling) — so a lost message, a failed schedule or a crashed publisher
 * never strands a delivery.
 */
export async function sweepDeliveries(
  deps: Pick<
    WebhookDependencies,
    'endpoints' | 'events' | 'deliveries' | 'queue' | 'clock' | 'retryDelaysSeconds'
  >,
): Promise<SweepResult> {
  const before = deps.clock.now() - sweepGraceMs;

  let fannedOut = 0;
  for (const event of await deps.events.listStalledFanOuts(before, sweepBatchSize)) {
    // A test event interrupted this way matches no subscription and is simply closed: the
    // client can send another.
    const endpoints = subscribersOf(
      await deps.endpoints.listForAccount(event.accountId),
      event.type,
    );
    await fanOut(deps, event, endpoints, { mayExist: true });
    fannedOut += 1;
  }

  const requeued = await queueDue(deps, before);
  if (requeued > 0) log.info('sweeper re-queued overdue deliveries', { count: requeued });
  // An endpoint stays marked until a pass finds no more than one batch of paused deliveries;
  // `before` lets an index entry written at the enabling reach the index first.
  let resumed = 0;
  for (const { endpoint, enabledAt } of await deps.endpoints.listResuming(before, sweepBatchSize)) {
    if (endpoint.status === 'enabled') {
      const found = await resumePaused(deps, endpoint, sweepBatchSize);
      resumed += found;
      if (found >= sweepBatchSize) continue;
    }
    await deps.endpoints.finishResuming(endpoint.accountId, endpoint.id, enabledAt);
  }
  return { requeued, fannedOut, resumed };
}

/**
 * The retry ladder's wake-up for `dueMinute` (its one-time schedule fired): queues every attempt
 * due before that minute ends, each with the queue delay that brings it at its own time.
 */
export async function sweepDueMinute(
  deps: Pick<WebhookDependencies, 'deliveries' | 'queue' | 'clock'>,
  wake: LadderWake,
): Promise<number> {
  const queued = await queueDue(deps, wake.dueMinute + 60_000);
  log.info('ladder woke for its due minute', {
    dueMinute: new Date(wake.dueMinute).toISOString(),
    queued,
  });
  return queued;
}

/** When a listed delivery's next step is due: its attempt, or its claim's lease expiring. */
const nextStepAt = (delivery: Delivery) =>
  delivery.status === 'attempting' && delivery.claim
    ? delivery.claim.expiresAt
    : delivery.nextAttemptAt;

/**
 * Queues the attempts of every delivery due before `before`, page after page, for at most
 * `sweepBudgetMs` (the next run takes what is left). Returns how many it queued.
 */
async function queueDue(
  deps: Pick<WebhookDependencies, 'deliveries' | 'queue' | 'clock'>,
  before: number,
): Promise<number> {
  const stopAt = performance.now() + sweepBudgetMs;
  let queued = 0;
  let cursor: string | undefined;
  do {
    const page = await deps.deliveries.listDuePage(before, sweepBatchSize, cursor);
    const now = deps.clock.now();
    const messages = page.deliveries.map((delivery) => ({
      deliveryId: delivery.id,
      attempt:
        delivery.status === 'attempting' && delivery.claim
          ? delivery.claim.attempt
          : delivery.nextAttempt,
      // At most the queue's reach: a wake-up that came early still has its attempts queued.
      delaySeconds: Math.min(
        maxQueueDelaySeconds,
        Math.max(0, Math.ceil((nextStepAt(delivery) - now) / 1000)),
      ),
    }));
    if (messages.length > 0) await deps.queue.enqueue(messages);
    queued += messages.length;
    cursor = page.cursor;
  } while (cursor !== undefined && performance.now() < stopAt);
  return queued;
}
