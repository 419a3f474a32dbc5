import { circuitThreshold, placeLeaseMs } from '../domain/webhooks/endpoint-load.js';
import type {
  Admission,
  CircuitState,
  EndpointLimits,
  EndpointLoadRepository,
} from '../domain/webhooks/ports.js';
import { type Item, updateIf } from './dynamodb.js';
import { keys } from './keys.js';

interface LoadItem {
  /** Attempts admitted and not yet released. */
  in_flight?: number;
  /** Epoch ms of the last admission or release. */
  touched_at?: number;
  /** Timeouts, network errors and 5xx answers in a row. */
  failures?: number;
  /** Openings of the circuit in a row. */
  trips?: number;
  /** Epoch ms until which the circuit is open. */
  open_until?: number;
  /** Epoch ms from which the rate limit admits the next attempt (the GCRA's arrival time). */
  next_free?: number;
}

/**
 * The circuit is closed, or half-open with no probe under way: after `circuitThreshold`
 * failures in a row, one attempt at a time probes the endpoint.
 */
const circuitLets =
  '(attribute_not_exists(open_until) OR open_until <= :now) AND (attribute_not_exists(failures) OR failures < :threshold OR in_flight < :one)';

const hasPlace = '(attribute_not_exists(in_flight) OR in_flight < :cap)';

/** The rate allows one more now: its next free time is at most one second (less one interval) away. */
const rateLets = '(next_free >= :now AND next_free <= :latest)';

/**
 * One item per endpoint (`ENDPOINT_LOAD#<id>`), written twice by each admitted attempt (admit,
 * release): a partition takes about 1,000 writes a second, so one endpoint's attempts top out near
 * 500 a second, far above what `inFlight` places allow an endpoint that answers in 10 ms or more.
 *
 * The rate limit is a GCRA (generic cell rate algorithm): `next_free` moves one interval (1 s ÷
 * rate) per admission, and an attempt is admitted while `next_free` is within a second of now —
 * at most `rate` a second, never a burst beyond one second's worth.
 */
export const dynamoEndpointLoadRepository: EndpointLoadRepository = {
  async admit(endpointId, limits, now) {
    const Key = keys.endpointLoad(endpointId);
    const interval = limits.ratePerSecond === undefined ? 0 : 1000 / limits.ratePerSecond;
    const values: Record<string, unknown> = {
      ':now': now,
      ':one': 1,
      ...(limits.ignoreCircuit ? {} : { ':threshold': circuitThreshold }),
    };
    const admitWith = (update: string, condition: string, extra: Record<string, unknown>) =>
      updateIf({
        Key,
        UpdateExpression: update,
        ConditionExpression: limits.ignoreCircuit ? condition : `${circuitLets} AND ${condition}`,
        ExpressionAttributeValues: { ...values, ...extra },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
    const rated = interval > 0;
    const first = await admitWith(
      rated
        ? 'SET touched_at = :now, next_free = if_not_exists(next_free, :now) + :interval ADD in_flight :one'
        : 'SET touched_at = :now ADD in_flight :one',
      rated ? `${hasPlace} AND (attribute_not_exists(next_free) OR ${rateLets})` : hasPlace,
      rated
        ? { ':cap': limits.inFlight, ':interval': interval, ':latest': now + 1000 - interval }
        : { ':cap': limits.inFlight },
    );
    if (first.ok) return { admitted: true };
    const load = (first.item ?? {}) as LoadItem;
    const refusal = refusalOf(load, limits, now);
    if (refusal !== undefined) return refusal;
    // What is left: places lost to workers that died (nothing touched the load for a lease:
    // this attempt is then the only one in flight), or a rate idle for a while (its next free
    // time is past: it restarts from now).
    const stale = (load.touched_at ?? 0) < now - placeLeaseMs;
    if (!stale && !rated) return { admitted: false, reason: 'busy' };
    const next = rated ? { ':next': now + interval } : {};
    const retry = stale
      ? await admitWith(
          `SET touched_at = :now, in_flight = :one${rated ? ', next_free = :next' : ''}`,
          'touched_at = :seen',
          { ...next, ':seen': load.touched_at ?? 0 },
        )
      : await admitWith(
          'SET touched_at = :now, next_free = :next ADD in_flight :one',
          `${hasPlace} AND (attribute_not_exists(next_free) OR next_free < :now)`,
          { ...next, ':cap': limits.inFlight },
        );
    if (retry.ok) return { admitted: true };
    return (
      refusalOf((retry.item ?? {}) as LoadItem, limits, now) ?? { admitted: false, reason: 'busy' }
    );
  },

  async release(endpointId, failed, now) {
    const result = await updateIf({
      Key: keys.endpointLoad(endpointId),
      UpdateExpression: failed
        ? 'SET touched_at = :now ADD in_flight :minusOne, failures :one'
        : 'SET touched_at = :now, failures = :zero, trips = :zero ADD in_flight :minusOne REMOVE open_until',
      ExpressionAttributeValues: {
        ':now': now,
        ':minusOne': -1,
        ...(failed ? { ':one': 1 } : { ':zero': 0 }),
      },
      ReturnValues: 'ALL_NEW',
    });
    return circuitOf((result.ok ? result.attributes : undefined) ?? {});
  },

  async open(endpointId, openUntil, now) {
    await updateIf({
      Key: keys.endpointLoad(endpointId),
      UpdateExpression: 'SET open_until = :until ADD trips :one',
      ConditionExpression: 'attribute_not_exists(open_until) OR open_until <= :now',
      ExpressionAttributeValues: { ':until': openUntil, ':now': now, ':one': 1 },
    });
  },
};

/** Why an admission was refused, from the load as it stood; undefined when a retry may pass. */
function refusalOf(load: LoadItem, limits: EndpointLimits, now: number): Admission | undefined {
  const failures = load.failures ?? 0;
  if (
    !limits.ignoreCircuit &&
    ((load.open_until ?? 0) > now || (failures >= circuitThreshold && (load.in_flight ?? 0) >= 1))
  ) {
    return {
      admitted: false,
      reason: 'circuit_open',
      openUntil: Math.max(now, load.open_until ?? now),
      consecutiveFailures: failures,
    };
  }
  const stale = (load.touched_at ?? 0) < now - placeLeaseMs;
  if ((load.in_flight ?? 0) >= limits.inFlight && !stale)
    return { admitted: false, reason: 'busy' };
  if (limits.ratePerSecond !== undefined && load.next_free !== undefined && load.next_free >= now) {
    const latest = now + 1000 - 1000 / limits.ratePerSecond;
    if (load.next_free > latest) {
      return {
        admitted: false,
        reason: 'rate_limited',
        nextFreeAt: load.next_free - (latest - now),
      };
    }
  }
  return undefined;
}

const circuitOf = (item: Item): CircuitState => {
  const load = item as LoadItem;
  return {
    consecutiveFailures: load.failures ?? 0,
    trips: load.trips ?? 0,
    openUntil: load.open_until,
  };
};
