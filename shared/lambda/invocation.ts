import type { Context } from 'aws-lambda';
import { emfMetricsSink } from '../adapters/emf-metrics.js';
import { serviceName } from '../config.js';
import { useMetricsSink } from '../domain/metrics.js';
import { type LogContext, startLogContext } from '../log.js';

/**
 * The Lambda edge that every handler passes through (the API and receiver stacks, the queue
 * worker runner, the schedules): each invocation gets its log context — function, Lambda request
 * id, cold start, X-Ray trace id, correlation id — and the use-cases' metrics a writer.
 */

// Metrics reach CloudWatch as embedded-metric-format lines in the function's own log group.
useMetricsSink(emfMetricsSink(serviceName));

/**
 * The Root of `_X_AMZN_TRACE_ID` (`Root=1-…;Parent=…;Sampled=1`), which Lambda sets for each
 * invocation when active tracing is on: the id X-Ray's console finds the trace by.
 */
function traceId(): string | undefined {
  const header = process.env._X_AMZN_TRACE_ID;
  return header === undefined ? undefined : /Root=([^;]+)/.exec(header)?.[1];
}

type Handler<TEvent, TResult> = (event: TEvent, context: Context) => Promise<TResult>;

/**
 * `handler` with its invocations' log context. `requestIdOf` names the request the caller was
 * answered for (API Gateway's, a Function URL's), which becomes the correlation id; without one
 * the invocation is its own start (a schedule), or each record sets its own (a queue).
 *
 * Cold start is counted per wrapped handler: on Lambda a bundle holds one, and the local runtime,
 * which loads them all in one process, then reports each function's first invocation as AWS would.
 */
export function instrumented<TEvent, TResult>(
  handler: Handler<TEvent, TResult>,
  requestIdOf: (event: TEvent) => string | undefined = () => undefined,
): Handler<TEvent, TResult> {
  let coldStart = true;
  return (event, context) => {
    const requestId = requestIdOf(event);
    const invocation: LogContext = {
      cold_start: coldStart,
      // Tests may invoke a handler without a context.
      function_name: context?.functionName ?? process.env.AWS_LAMBDA_FUNCTION_NAME,
      function_request_id: context?.awsRequestId,
      xray_trace_id: traceId(),
      api_request_id: requestId,
      correlation_id: requestId ?? context?.awsRequestId,
    };
    coldStart = false;
    return startLogContext(invocation, () => handler(event, context));
  };
}

/** A handler run by a schedule (EventBridge rule): its own invocation is the correlation id. */
export function scheduledHandler<TResult>(run: () => Promise<TResult>): Handler<unknown, TResult> {
  return instrumented(() => run());
}
