/**
 * Fixed-window rate limiting (contract.md, "Rate limits"): a counter per client and window,
 * incremented atomically; the window's end is what X-RateLimit-Reset reports.
 */

export interface WindowCounter {
  /**
   * Adds one hit to the counter of `scope`/`client` for the window starting at `windowStart`
   * (epoch seconds) and returns the count including this hit. The counter may be forgotten once
   * `expiresAt` (epoch seconds) has passed.
   */
  hit(scope: string, client: string, windowStart: number, expiresAt: number): Promise<number>;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds at which the window ends. */
  reset: number;
  /** Seconds until the window ends (Retry-After on a 429). */
  retryAfter: number;
}

export interface FixedWindow {
  scope: string;
  limit: number;
  windowSeconds: number;
}

export async function consume(
  counter: WindowCounter,
  window: FixedWindow,
  client: string,
  nowMs: number,
): Promise<RateLimitDecision> {
  const now = Math.floor(nowMs / 1000);
  const windowStart = now - (now % window.windowSeconds);
  const reset = windowStart + window.windowSeconds;
  const count = await counter.hit(window.scope, client, windowStart, reset + 60);
  return {
    allowed: count <= window.limit,
    limit: window.limit,
    remaining: Math.max(0, window.limit - count),
    reset,
    retryAfter: Math.max(1, reset - now),
  };
}
