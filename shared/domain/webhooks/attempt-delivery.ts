import { randomUUID } from 'node:crypto';
import { log } from '../../log.js';
import { metrics } from '../metrics.js';
import { noteEndpointHealth } from './endpoint-health.js';
import { deferredUntil, settleLoad } from './endpoint-load.js';
import { signingSecrets } from './endpoints.js';
import { addToDigest } from './failure-digest.js';
import type { AttemptMessage, AttemptRecord, Delivery } from './model.js';
import type {
  AttemptResolution,
  ClaimTerms,
  SendOutcome,
  SignedRequest,
  WebhookDependencies,
} from './ports.js';
import { scheduleAttempt } from './schedule-attempt.js';
import { signatureHeaders } from './signing.js';

/**
 * How long a claim protects an attempt from other workers. Longer than the 10 s request timeout
 * plus recording, and shorter than the queue's visibility timeout (180 s), so a message that
 * comes back after a worker died finds the lease expired and takes the attempt over.
 */
export const claimLeaseMs = 60_000;

/**
 * Claims of one attempt whose outcome never got recorded (the worker died each time) after which
 * the attempt is counted as failed without posting again: the counter always advances, so a
 * poison delivery cannot loop for ever (Convoy's attempt counter that never moved).
 */
export const maxClaimsPerAttempt = 3;

/** A queue or schedule delivering a few seconds early must not be refused as "not due". */
export const earlyArrivalToleranceMs = 5_000;

/**
 * The terms of a claim made at `now`: a fresh token, a lease of `claimLeaseMs`, and the early
 * arrival tolerated.
 */
export function claimTerms(now: number): ClaimTerms {
  return {
    token: randomUUID(),
    now,
    dueBy: now + earlyArrivalToleranceMs,
    leaseUntil: now + claimLeaseMs,
  };
}

/** What became of one attempt message. */
export type AttemptResult =
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  /** Already claimed by a live worker, already made, or not due: a duplicate message. */
  | 'duplicate'
  /** Another worker took the attempt over after our lease expired; our outcome was discarded. */
  | 'claim_lost'
  /** The endpoint or the event is gone: the delivery ends without an attempt. */
  | 'abandoned'
  /** The endpoint is disabled: the attempt waits, unmade, until it is enabled again. */
  | 'paused'
  /** The endpoint's places in flight were all taken, or its rate spent: put back, unmade. */
  | 'deferred';

export type AttemptDependencies = Pick<
  WebhookDependencies,
  | 'deliveries'
  | 'endpoints'
  | 'loads'
  | 'accounts'
  | 'queue'
  | 'scheduler'
  | 'ladderMinutes'
  | 'digests'
  | 'sender'
  | 'mailer'
  | 'clock'
  | 'retryDelaysSeconds'
  | 'disableAfterDays'
  | 'endpointMaxInFlight'
>;

const isSuccess = (outcome: SendOutcome) =>
  outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;

function resolve(
  deps: AttemptDependencies,
  delivery: Delivery,
  attempt: number,
  succeeded: boolean,
  now: number,
): AttemptResolution {
  if (succeeded) return { status: 'delivered' };
  if (attempt >= delivery.lastAllowedAttempt) return { status: 'failed' };
  // delays[n] is the wait before the ladder's attempt n + 1, counted from this failure; a
  // recovered delivery's ladder starts again at its first step.
  const delaySeconds = deps.retryDelaysSeconds[attempt - delivery.ladderStart + 1] ?? 0;
  return { status: 'pending', nextAttemptAt: now + delaySeconds * 1000 };
}

/**
 * Makes one attempt of a delivery (one queue message): claim it, post the exact stored bytes with
 * fresh signatures, record the outcome, and put the next attempt on its way.
 *
 * The claim is a conditional write made before the POST, so a redelivered or duplicated message
 * cannot cause a second attempt, nor re-deliver a delivered event. The attempt counter advances
 * only when the outcome is recorded, so a worker that dies after posting leaves the same attempt
 * number to be taken over once its lease expires: the receiver may see that attempt twice (with
 * the same webhook-id, which it deduplicates on), but it is counted once.
 */
export async function attemptDelivery(
  deps: AttemptDependencies,
  message: AttemptMessage,
): Promise<AttemptResult> {
  const result = await runAttempt(deps, message);
  metrics.count('DeliveryAttempts', { Outcome: result, Attempt: String(message.attempt) });
  return result;
}

async function runAttempt(
  deps: AttemptDependencies,
  message: AttemptMessage,
): Promise<AttemptResult> {
  const terms = claimTerms(deps.clock.now());
  const { token } = terms;
  const delivery = await deps.deliveries.claim(message.deliveryId, message.attempt, terms);
  if (delivery === undefined) return 'duplicate';

  const { event, endpoint } = await deps.deliveries.loadTarget(delivery);
  if (event === undefined || endpoint === undefined) {
    await deps.deliveries.abandon(delivery.id, token);
    return 'abandoned';
  }
  // The endpoint was read (consistently) after the claim: whatever read it enabled started
  // before a disable and goes on to post and record; whatever reads it disabled waits. So no
  // attempt starts once a disable is stored, and none that started is lost.
  if (endpoint.status === 'disabled') {
    return (await deps.deliveries.pause(delivery, token)) ? 'paused' : 'claim_lost';
  }

  const admission =
    (delivery.claim?.count ?? 1) > maxClaimsPerAttempt
      ? undefined
      : await deps.loads.admit(
          endpoint.id,
          {
            inFlight: deps.endpointMaxInFlight,
            ratePerSecond: endpoint.rateLimit,
            // The first attempt of a ladder its owner restarted (a retry, a recovery) is sent
            // whatever the circuit says: the owner says the endpoint works again.
            ignoreCircuit: delivery.ladderStart > 1 && message.attempt === delivery.ladderStart,
          },
          deps.clock.now(),
        );
  if (admission?.admitted === false && admission.reason !== 'circuit_open') {
    // Busy or rate-limited: the attempt goes back unmade, holding no worker slot meanwhile.
    const until = deferredUntil(admission, delivery.deferrals, deps.clock.now());
    if (!(await deps.deliveries.defer(delivery, token, until))) return 'claim_lost';
    metrics.count('DeliveriesDeferred', { Reason: admission.reason });
    await putOnItsWay(deps, delivery, message.attempt, until);
    return 'deferred';
  }

  const attemptedAt = deps.clock.now();
  // Signed only when it goes out: an attempt the worker does not make sends nothing.
  let headers: Record<string, string> | undefined;
  let outcome: SendOutcome;
  if (admission === undefined) {
    outcome = {
      latencyMs: 0,
      error: `no outcome recorded after ${maxClaimsPerAttempt} tries (the worker kept failing)`,
    };
  } else if (!admission.admitted) {
    outcome = {
      latencyMs: 0,
      error: `not sent: the endpoint's circuit is open after ${admission.consecutiveFailures} timeouts or 5xx answers in a row, until ${new Date(admission.openUntil).toISOString()}`,
    };
  } else {
    headers = {
      'content-type': 'application/json',
      'user-agent': 'account-service-webhooks/1',
      ...signatureHeaders(
        event.id,
        Math.floor(attemptedAt / 1000),
        event.payload,
        signingSecrets(endpoint, attemptedAt),
      ),
    };
    outcome = await sendSettled(deps, endpoint.id, {
      url: endpoint.url,
      body: event.payload,
      headers,
    });
  }
  const succeeded = isSuccess(outcome);
  const record: AttemptRecord = {
    attempt: message.attempt,
    attemptedAt: new Date(attemptedAt).toISOString(),
    outcome: succeeded ? 'succeeded' : 'failed',
    ...(headers === undefined ? {} : { requestHeaders: headers }),
    responseStatus: outcome.status,
    responseHeaders: outcome.headers,
    latencyMs: outcome.latencyMs,
    responseBody: outcome.body,
    error: succeeded
      ? undefined
      : (outcome.error ?? `the endpoint answered HTTP ${outcome.status ?? 'nothing'}`),
  };
  const finishedAt = deps.clock.now();
  const resolution = resolve(deps, delivery, message.attempt, succeeded, finishedAt);
  if (!(await deps.deliveries.recordAttempt(delivery, token, record, resolution))) {
    log.warn('attempt outcome discarded: the claim was taken over', {
      deliveryId: delivery.id,
      attempt: message.attempt,
    });
    return 'claim_lost';
  }
  await noteEndpointHealth(deps, endpoint, succeeded, finishedAt);

  if (resolution.status === 'delivered') {
    metrics.measure('DeliveryLatency', finishedAt - Date.parse(event.createdAt), {});
    return 'delivered';
  }
  if (resolution.status === 'pending') {
    await putOnItsWay(deps, delivery, message.attempt + 1, resolution.nextAttemptAt);
    return 'retry_scheduled';
  }
  // The first ladder's last attempt failed: the day's digest tells the account. A manual retry
  // or a recovery that fails again is not counted twice.
  if (delivery.ladderStart === 1) await addToDigest(deps, endpoint, delivery, record, finishedAt);
  return 'failed';
}

/**
 * Posts an admitted attempt and gives its place back with the outcome: the place is held only
 * while the request is under way.
 */
async function sendSettled(
  deps: AttemptDependencies,
  endpointId: string,
  request: SignedRequest,
): Promise<SendOutcome> {
  const outcome = await deps.sender.send(request);
  await settleLoad(deps, endpointId, outcome);
  return outcome;
}

/** Queues or schedules `attempt` for `dueAt`; a failure is left to the sweeper. */
async function putOnItsWay(
  deps: AttemptDependencies,
  delivery: Delivery,
  attempt: number,
  dueAt: number,
): Promise<void> {
  try {
    await scheduleAttempt(deps, { deliveryId: delivery.id, attempt }, dueAt);
  } catch (error) {
    // The delivery is recorded as due; the sweeper re-queues it once it is overdue.
    log.warn('next attempt not scheduled; the sweeper will pick it up', {
      deliveryId: delivery.id,
      error,
    });
  }
}
