/**
 * The business and on-call metrics of the service, declared once: use-cases record them through
 * `metrics`, and the stack's dashboard and alarms (infra/operations.ts) read their names and
 * dimensions from here, so a renamed metric cannot leave a widget or an alarm watching nothing.
 *
 * Domain code only names what happened; how it reaches CloudWatch is an adapter's business (the
 * embedded metric format writer, shared/adapters/emf-metrics.ts, installed by the Lambda edge).
 * Until one is installed — in unit tests of the use-cases, say — a recorded point goes nowhere.
 */

export type MetricUnit = 'Count' | 'Milliseconds';

interface MetricDefinition {
  unit: MetricUnit;
  /** Dimensions every point names; each combination is one CloudWatch metric. */
  dimensions: readonly string[];
  /**
   * A finer breakdown a point may add (the country of a text, the attempt number): the point is
   * then published twice, once per dimension set, so the coarse total stays one metric.
   */
  detail?: readonly string[];
  /** What one point means: the dashboard's legend and docs/operations.md say the same. */
  description: string;
}

export const metricDefinitions = {
  Signups: {
    unit: 'Count',
    dimensions: [],
    description: 'accounts created by signup (a signup for an email that has one is not counted)',
  },
  Activations: {
    unit: 'Count',
    dimensions: [],
    description: 'signups activated with their emailed code',
  },
  Logins: {
    unit: 'Count',
    dimensions: ['Outcome'],
    description:
      'password logins: ok, failed (wrong email or password), locked, unverified, mfa_required',
  },
  MfaChallenges: {
    unit: 'Count',
    dimensions: ['Factor'],
    description: 'sign-ins that proved their first factor and were asked for the second (totp)',
  },
  MfaVerifications: {
    unit: 'Count',
    dimensions: ['Outcome', 'Factor'],
    description:
      'second-factor checks of an MFA ticket: verified or refused, by factor (totp, recovery_code)',
  },
  PasskeySignIns: {
    unit: 'Count',
    dimensions: ['Outcome'],
    description: 'sign-ins with a passkey: ok, refused',
  },
  Refreshes: {
    unit: 'Count',
    dimensions: ['Outcome'],
    description:
      'refresh-token exchanges: rotated, grace (a race within 10 s), reuse_detected (session revoked), refused',
  },
  OtpSent: {
    unit: 'Count',
    dimensions: ['Channel'],
    detail: ['Country'],
    description: 'codes sent, by channel (email, sms) and, for texts, the country texted',
  },
  OtpVerifications: {
    unit: 'Count',
    dimensions: ['Outcome'],
    detail: ['Channel'],
    description: 'codes checked: verified, invalid, expired, too_many_attempts',
  },
  RateLimited: {
    unit: 'Count',
    dimensions: ['Limit'],
    description: '429 answers, by the limit that refused',
  },
  SmsRefused: {
    unit: 'Count',
    dimensions: ['Limit'],
    description:
      'texts refused by an SMS bound: hourly-cap (SMS_MAX_PER_HOUR), generic-share (the share kept for sign-in and verification), generic-numbers and generic-texts (one account’s generic codes)',
  },
  InboundEvents: {
    unit: 'Count',
    dimensions: ['Source', 'Outcome'],
    description:
      'inbound webhook calls, each counted, stored or not: accepted, duplicate, invalid_signature, malformed, too_old, too_large, wrong_method, forbidden, verified, failed',
  },
  DeliveryAttempts: {
    unit: 'Count',
    dimensions: ['Outcome'],
    detail: ['Attempt'],
    description:
      'delivery attempt messages handled: delivered, retry_scheduled, failed, duplicate, claim_lost, abandoned, paused',
  },
  DeliveriesDeferred: {
    unit: 'Count',
    dimensions: ['Reason'],
    description:
      'attempts put back unmade: busy (the endpoint had its most attempts in flight) or rate_limited (its rate_limit spent)',
  },
  EndpointCircuitOpened: {
    unit: 'Count',
    dimensions: [],
    description:
      'endpoint circuits opened after consecutive timeouts or 5xx answers (attempts due meanwhile fail without a request)',
  },
  LadderWakeFailed: {
    unit: 'Count',
    dimensions: [],
    description:
      "a due minute's wake-up schedule could not be created (the periodic sweep queues that minute's attempts once overdue)",
  },
  FailureDigestsSent: {
    unit: 'Count',
    dimensions: [],
    description: "daily digests of an endpoint's failed deliveries emailed to its owner",
  },
  EndpointsAutoDisabled: {
    unit: 'Count',
    dimensions: [],
    description: 'webhook endpoints disabled after failing for WEBHOOK_DISABLE_AFTER_DAYS',
  },
  DeliveryLatency: {
    unit: 'Milliseconds',
    dimensions: [],
    description: 'from an event’s publication to its delivery to one endpoint',
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof metricDefinitions;

type Definition<N extends MetricName> = (typeof metricDefinitions)[N];

/** The dimensions a point of `N` must name, and the detail it may add. */
export type DimensionsOf<N extends MetricName> = Record<
  Definition<N>['dimensions'][number],
  string
> &
  (Definition<N> extends { detail: readonly (infer K extends string)[] }
    ? Partial<Record<K, string>>
    : unknown);

/** One recorded value, as a sink receives it. */
export interface MetricPoint {
  name: MetricName;
  unit: MetricUnit;
  value: number;
  dimensions: Record<string, string>;
  /** The dimension sets to publish the value under (one, or two with a detail). */
  dimensionSets: string[][];
}

/** Where points go: implemented by an adapter, installed by the Lambda edge. */
export interface MetricsSink {
  record(point: MetricPoint): void;
}

let sink: MetricsSink | undefined;

/** Installs where points go (the embedded-metric-format writer; a recorder in tests). */
export function useMetricsSink(replacement: MetricsSink | undefined): void {
  sink = replacement;
}

function record<N extends MetricName>(name: N, value: number, dimensions: DimensionsOf<N>): void {
  if (sink === undefined) return;
  const definition: MetricDefinition = metricDefinitions[name];
  const given = dimensions as Record<string, string | undefined>;
  const named = Object.fromEntries(
    Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const detail = (definition.detail ?? []).filter((key) => named[key] !== undefined);
  sink.record({
    name,
    unit: definition.unit,
    value,
    dimensions: named,
    dimensionSets: [
      [...definition.dimensions],
      ...(detail.length > 0 ? [[...definition.dimensions, ...detail]] : []),
    ],
  });
}

export const metrics = {
  /** One occurrence of `name` (a Count). */
  count<N extends MetricName>(name: N, dimensions: DimensionsOf<N>): void {
    record(name, 1, dimensions);
  },
  /** A measured value of `name` in its unit (a duration in milliseconds). */
  measure<N extends MetricName>(name: N, value: number, dimensions: DimensionsOf<N>): void {
    record(name, value, dimensions);
  },
};
