import { log } from '../../log.js';
import { resumePaused } from './endpoints.js';
import type { AttemptMessage } from './model.js';
import type { WebhookDependencies } from './ports.js';
import { fanOut, subscribersOf } from './publish-event.js';

/**
 * How overdue work must be before the sweeper steps in. The normal path (a queue message, a
 * schedule) gets this long to act first; duplicates the sweeper still causes are dropped by the
 * claim, so this only keeps them rare.
 */
export const sweepGraceMs = 60_000;

/** Items handled per sweep; the next sweep takes the rest. */
export const sweepBatchSize = 200;

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

  const due = await deps.deliveries.listDue(before, sweepBatchSize);
  const messages: AttemptMessage[] = due.map((delivery) => ({
    deliveryId: delivery.id,
    attempt:
      delivery.status === 'attempting' && delivery.claim
        ? delivery.claim.attempt
        : delivery.nextAttempt,
  }));
  if (messages.length > 0) {
    await deps.queue.enqueue(messages.map((message) => ({ ...message, delaySeconds: 0 })));
    log.info('sweeper re-queued overdue deliveries', { count: messages.length });
  }
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
  return { requeued: messages.length, fannedOut, resumed };
}
