import { log } from '../../log.js';
import { metrics } from '../metrics.js';
import type { Admission, SendOutcome, WebhookDependencies } from './ports.js';

/**
 * Isolation per endpoint. Every attempt first takes a place among its endpoint's attempts in
 * flight (a conditional write on the endpoint's load item), so one endpoint never holds more than
 * `inFlight` worker slots however many of its deliveries are queued, and an endpoint whose owner
 * set a `rate_limit` is started at most that many times a second. After `circuitThreshold`
 * consecutive timeouts, network errors or 5xx answers the endpoint's circuit opens: attempts
 * that come due meanwhile are counted as failed without a request (they go on along the ladder,
 * holding no worker slot), and after `circuitOpenMs` one attempt at a time probes it.
 */

/** Consecutive timeouts or 5xx answers after which an endpoint's circuit opens. */
export const circuitThreshold = 5;

/** How long the circuit stays open after its first opening; each reopening doubles it. */
export const circuitBaseOpenMs = 15_000;

/** The longest an open circuit waits before its next probe. */
export const circuitMaxOpenMs = 10 * 60_000;

/** How long the circuit stays open after the `trips`-th opening in a row (1-based). */
export const circuitOpenMs = (trips: number): number =>
  Math.min(circuitMaxOpenMs, circuitBaseOpenMs * 2 ** Math.max(0, trips - 1));

/**
 * The longest a busy endpoint's attempt is put back for: an attempt holds its place for at most
 * the sender's 10 s plus its bookkeeping, so places free within this.
 */
export const busyDeferralMs = 10_000;

/**
 * How long an admitted attempt may hold its place before the place counts as lost (its worker
 * died before giving it back): the claim's lease, which outlasts any attempt.
 */
export const placeLeaseMs = 60_000;

/** Whether an outcome counts towards opening the circuit: no answer in time, or a 5xx. */
export const failsCircuit = (outcome: SendOutcome): boolean =>
  outcome.status === undefined || outcome.status >= 500;

/**
 * When a deferred attempt comes back: a busy endpoint's after about `busyDeferralMs`, a rate
 * limit's once the rate allows; each deferral of the same delivery waits twice as long as the one
 * before (up to SQS's 15 minutes), with jitter, so a long backlog behind a small `rate_limit`
 * costs few claims, not one per second per delivery.
 */
export function deferredUntil(
  admission: Extract<Admission, { reason: 'busy' | 'rate_limited' }>,
  deferrals: number,
  now: number,
  random: () => number = Math.random,
): number {
  const base = admission.reason === 'busy' ? busyDeferralMs : 1_000;
  const spread = Math.min(maxDeferralMs, base * 2 ** deferrals);
  const earliest = admission.reason === 'busy' ? now : Math.max(now, admission.nextFreeAt);
  return earliest + Math.round(spread * (0.5 + random() / 2));
}

/** SQS's longest delay: a deferred attempt always goes back on the queue. */
const maxDeferralMs = 900_000;

type LoadDependencies = Pick<WebhookDependencies, 'loads' | 'clock'>;

/**
 * Gives an admitted attempt's place back with its outcome, and opens the circuit when this
 * failure made the streak reach `circuitThreshold`. A failure here loses nothing the delivery
 * needs: a place never given back counts as lost after `placeLeaseMs`, and the next outcome
 * counts the streak.
 */
export async function settleLoad(
  deps: LoadDependencies,
  endpointId: string,
  outcome: SendOutcome,
): Promise<void> {
  try {
    const now = deps.clock.now();
    const state = await deps.loads.release(endpointId, failsCircuit(outcome), now);
    if (state.consecutiveFailures < circuitThreshold) return;
    if (state.openUntil !== undefined && state.openUntil > now) return;
    const openUntil = now + circuitOpenMs(state.trips + 1);
    await deps.loads.open(endpointId, openUntil, now);
    metrics.count('EndpointCircuitOpened', {});
    log.warn('webhook endpoint circuit opened', {
      endpointId,
      consecutiveFailures: state.consecutiveFailures,
      openUntil: new Date(openUntil).toISOString(),
    });
  } catch (error) {
    log.error('endpoint load not settled', { endpointId, error });
  }
}
