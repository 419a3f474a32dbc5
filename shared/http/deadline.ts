import type { Context } from 'aws-lambda';
import { log } from '../log.js';
import { errorResponse, type HttpResponse } from './responses.js';

/** How long before the function's timeout a request still running is answered anyway. */
export const deadlineMarginMs = 250;

/**
 * Answers `work`, or — when it is still running `deadlineMarginMs` before the function's timeout —
 * the 500 envelope with `headers`, and leaves the work behind as Lambda would cut it. A dependency
 * that takes a call and never answers (in a middleware or the use-case) would otherwise hold the
 * request until Lambda's timeout, and API Gateway or the Function URL answer their own 502/504
 * outside the envelope. A context without a remaining time (some tests) leaves the work unbounded.
 */
export async function answerBeforeDeadline(
  context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  work: Promise<HttpResponse>,
  requestId: string,
  headers: Record<string, string>,
): Promise<HttpResponse> {
  const remaining = context?.getRemainingTimeInMillis?.();
  if (remaining === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<HttpResponse>((answer) => {
    timer = setTimeout(
      () => {
        log.error('request answered 500 at its deadline: a dependency did not answer', {
          requestId,
        });
        // What the abandoned work ends with no longer matters, failure included.
        work.catch(() => undefined);
        const response = errorResponse(
          'internal_error',
          'Something went wrong on our side; the request can be retried',
        );
        answer({ ...response, headers: { ...headers, ...response.headers } });
      },
      Math.max(0, remaining - deadlineMarginMs),
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
