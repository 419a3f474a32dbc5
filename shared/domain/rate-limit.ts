import { ServiceError } from './errors.js';

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

/** Counts one hit of `client` on the window at `nowMs`. */
export function consume(
  counter: WindowCounter,
  window: FixedWindow,
  client: string,
  nowMs: number,
): Promise<RateLimitDecision> {
  return new PendingHit(counter, window, client, nowMs).count();
}

/** The 429 of a request over its client's per-minute limit. */
export const rateLimited = (decision: RateLimitDecision): ServiceError =>
  new ServiceError('rate_limited', 'Too many requests; retry after the window resets', [], {
    retryAfterSeconds: decision.retryAfter,
  });

/**
 * One request's hit on a window, not counted yet: a use-case that writes anyway may count it in
 * its own write (a refresh, in its rotation's transaction) instead of a write of its own, saving
 * a round trip; whatever path leaves it uncounted, the HTTP layer counts it alone. Either way the
 * request is counted exactly once, and the headers report the count its write produced.
 */
export class PendingHit {
  readonly limit: number;
  /** Epoch seconds at which the window starts, and ends (X-RateLimit-Reset). */
  readonly windowStart: number;
  readonly reset: number;
  /** Epoch seconds after which the counter may be forgotten. */
  readonly expiresAt: number;
  private readonly now: number;
  private counted: RateLimitDecision | undefined;

  constructor(
    private readonly counter: WindowCounter,
    readonly window: FixedWindow,
    readonly client: string,
    nowMs: number,
  ) {
    this.now = Math.floor(nowMs / 1000);
    this.windowStart = this.now - (this.now % window.windowSeconds);
    this.reset = this.windowStart + window.windowSeconds;
    this.expiresAt = this.reset + 60;
    this.limit = window.limit;
  }

  /** The decision, once the hit is counted. */
  get decision(): RateLimitDecision | undefined {
    return this.counted;
  }

  /** Counts the hit alone (one atomic increment); a hit already counted is not counted again. */
  async count(): Promise<RateLimitDecision> {
    this.counted ??= this.decide(
      await this.counter.hit(this.window.scope, this.client, this.windowStart, this.expiresAt),
    );
    return this.counted;
  }

  /**
   * Records that the use-case's own write counted the hit, on the condition that the window then
   * held exactly `before` hits: its count is `before + 1`, exactly.
   */
  countedAfter(before: number): RateLimitDecision {
    this.counted = this.decide(before + 1);
    return this.counted;
  }

  private decide(count: number): RateLimitDecision {
    return {
      allowed: count <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - count),
      reset: this.reset,
      retryAfter: Math.max(1, this.reset - this.now),
    };
  }
}
