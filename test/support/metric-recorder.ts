import { type MetricPoint, useMetricsSink } from '../../shared/domain/metrics.js';

/** The points the use-cases record, kept in memory until `stop()`. */
export function recordMetrics(): { points: MetricPoint[]; stop(): void } {
  const points: MetricPoint[] = [];
  useMetricsSink({ record: (point) => points.push(point) });
  return { points, stop: () => useMetricsSink(undefined) };
}
