import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/** CloudWatch evaluates at most ten metrics in one alarm's math. */
export const metricsPerAlarm = 10;

/** `items` in groups of at most `metricsPerAlarm`: what one alarm may read. */
export function inGroups<T>(items: readonly T[]): T[][] {
  const groups: T[][] = [];
  for (let start = 0; start < items.length; start += metricsPerAlarm) {
    groups.push(items.slice(start, start + metricsPerAlarm));
  }
  return groups;
}

/**
 * `FUNCTION` of `metrics` per period. The metrics' ids derive from the label: ids must be unique
 * across a graph that shows several expressions.
 */
function mathOf(
  fn: 'SUM' | 'MAX',
  metrics: readonly cloudwatch.IMetric[],
  label: string,
  period: Duration,
): cloudwatch.MathExpression {
  const prefix = `m_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_`;
  const ids = metrics.map((_, index) => `${prefix}${index}`);
  return new cloudwatch.MathExpression({
    expression: `${fn}([${ids.join(', ')}])`,
    usingMetrics: Object.fromEntries(metrics.map((metric, index) => [ids[index]!, metric])),
    label,
    period,
  });
}

/** The sum of `metrics` per period; missing points count as none. */
export const sumOf = (metrics: readonly cloudwatch.IMetric[], label: string, period: Duration) =>
  mathOf('SUM', metrics, label, period);

/** The largest of `metrics` in each period. */
export const maxOf = (metrics: readonly cloudwatch.IMetric[], label: string, period: Duration) =>
  mathOf('MAX', metrics, label, period);
