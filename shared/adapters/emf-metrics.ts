import type { MetricPoint, MetricsSink } from '../domain/metrics.js';
import { writeRecord } from '../log.js';

/**
 * Metrics as CloudWatch embedded metric format documents: one JSON log line per point, which
 * CloudWatch Logs turns into the metric asynchronously — no PutMetricData call, no SDK client,
 * nothing awaited on the request path. Written through the logger, so each document also carries
 * the invocation's context (function, request and correlation ids) for Logs Insights.
 *
 * One line per point rather than Powertools Metrics' buffer flushed at the end of an invocation:
 * a buffer in module scope would mix the points of the concurrent invocations of the local
 * runtime, and this service records a handful of points per invocation. Hand-written because
 * the format is this small; Powertools Metrics measured costlier to import (docs/operations.md).
 * `namespace` is read with each point, as the logger reads the service name with each line.
 */
export function emfMetricsSink(namespace: () => string): MetricsSink {
  return {
    record(point: MetricPoint) {
      writeRecord({
        _aws: {
          Timestamp: Date.now(),
          CloudWatchMetrics: [
            {
              Namespace: namespace(),
              Dimensions: point.dimensionSets,
              Metrics: [{ Name: point.name, Unit: point.unit }],
            },
          ],
        },
        ...point.dimensions,
        [point.name]: point.value,
      });
    },
  };
}
