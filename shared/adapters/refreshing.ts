import { systemClock } from '../domain/clock.js';
import { log } from '../log.js';

/**
 * `read`, remembered for `everyMs` on the service clock, then read again on the next call: what
 * a running function holds of something an operator may change (a secret, the published token
 * keys) without a deploy. A re-read that fails keeps the value it would have replaced, with a
 * warning naming `what`, and the next call tries again: a brief failure does not fail requests,
 * and a lasting one (a grant removed) shows in the logs before anyone relies on a rotation. A
 * failed first read fails the call. A value `worthKeeping` refuses is returned but not kept.
 */
export function refreshing<T>(
  what: string,
  everyMs: number,
  read: () => Promise<T>,
  worthKeeping: (value: T) => boolean = () => true,
): () => Promise<T> {
  let held: { value: T; readAt: number } | undefined;
  let reading: Promise<T> | undefined;
  return () => {
    const now = systemClock.now();
    if (held !== undefined && now - held.readAt < everyMs) return Promise.resolve(held.value);
    // Concurrent calls of one expired value share one read.
    reading ??= read()
      .then(
        (value) => {
          held = worthKeeping(value) ? { value, readAt: now } : undefined;
          return value;
        },
        (error: unknown) => {
          if (held === undefined) throw error;
          log.warn(`${what} could not be read again; the value read before is used`, { error });
          return held.value;
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
}
