import { log } from '../../log.js';
import type { ProcessingRequest } from './model.js';
import type { StalledEvent, SweepDependencies } from './ports.js';

/**
 * How long the normal path gets before the sweeper steps in: after an event is stored (the
 * receiver's SendMessage, or the sender's retry after a 500), and after a worker's lease ends
 * (SQS redelivers the message of a crashed worker first). The sweeper's duplicates are harmless
 * (the claim lets one worker through); the grace only keeps them rare.
 */
export const inboundSweepGraceMs = 2 * 60_000;

/**
 * Sweeps that re-queue one event before it is given up as `failed`. Each sweep waits twice as
 * long as the previous one (2, 4, 8, 16, 32 minutes), and each re-queued message gets the
 * queue's own redeliveries, so an event is abandoned only after about an hour of failing — long
 * enough to ride out a transient outage, short enough that a poisoned event stops costing work.
 */
export const maxInboundSweeps = 5;

/** Events handled per run; the next run (5 minutes later) takes the rest. */
export const inboundSweepBatchSize = 100;

/**
 * The error line logged when an event is given up. The stack's metric filter matches this exact
 * `message` field and raises an alarm, so an operator learns of it without reading the logs.
 */
export const inboundEventAbandonedMessage = 'inbound event abandoned after repeated sweeps';

export interface InboundSweepResult {
  requeued: number;
  abandoned: number;
}

/** When an event swept now is due again, if it is still not processed by then. */
export const nextSweepDueAt = (now: number, sweepsSoFar: number): number =>
  now + inboundSweepGraceMs * 2 ** sweepsSoFar;

/**
 * The safety net behind the receivers: re-queues accepted events that were never processed —
 * the hand-off failed and the sender did not retry, or workers kept dying / the message went to
 * the dead-letter queue — and, after `maxInboundSweeps`, marks them `failed` (logged as an
 * error, for an alarm) instead of re-queueing them forever.
 */
export async function sweepInboundEvents(deps: SweepDependencies): Promise<InboundSweepResult> {
  const now = deps.clock.now();
  const stalled = await deps.events.listStalled(now, inboundSweepBatchSize);
  const toRequeue: StalledEvent[] = [];
  let abandoned = 0;
  for (const event of stalled) {
    if (event.sweeps >= maxInboundSweeps) {
      if (await abandon(deps, event, now)) abandoned += 1;
    } else {
      toRequeue.push(event);
    }
  }
  // Sent before the count is written: a send that fails leaves the events due as they were (the
  // next run tries again), and a message whose event is claimed meanwhile is merely a duplicate.
  if (toRequeue.length > 0) await deps.queue.enqueueMany(toRequeue.map(requestOf));
  // False when a worker claimed or finished the event meanwhile: it then needs no count.
  await Promise.all(
    toRequeue.map((event) => deps.events.markSwept(event, nextSweepDueAt(now, event.sweeps))),
  );
  const requeued = toRequeue.length;
  if (stalled.length > 0) {
    log.info('inbound sweeper ran', { stalled: stalled.length, requeued, abandoned });
  }
  return { requeued, abandoned };
}

async function abandon(deps: SweepDependencies, event: StalledEvent, now: number) {
  const done = await deps.events.abandon(
    event,
    `abandoned: not processed after ${event.sweeps} sweeps`,
    now,
  );
  if (done) {
    // An operator fixes the cause and replays the event (the sender's dashboard, or a resend).
    log.error(inboundEventAbandonedMessage, {
      source: event.source,
      eventId: event.eventId,
      status: event.status,
      sweeps: event.sweeps,
    });
  }
  return done;
}

const requestOf = (event: StalledEvent): ProcessingRequest => ({
  source: event.source,
  eventId: event.eventId,
});
