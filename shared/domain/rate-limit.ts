import { ServiceError } from './errors.js';

/**
 * Fixed-window rate limiting (docs/conventions.md, "Rate limits"): a counter per client and window,
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

/** Where a window stands at `nowMs`: its start, its end (X-RateLimit-Reset) and its expiry. */
function windowAt(window: FixedWindow, nowMs: number) {
  const now = Math.floor(nowMs / 1000);
  const windowStart = now - (now % window.windowSeconds);
  const reset = windowStart + window.windowSeconds;
  return { now, windowStart, reset, expiresAt: reset + 60 };
}

function decisionOf(
  window: FixedWindow,
  at: ReturnType<typeof windowAt>,
  count: number,
): RateLimitDecision {
  return {
    allowed: count <= window.limit,
    limit: window.limit,
    remaining: Math.max(0, window.limit - count),
    reset: at.reset,
    retryAfter: Math.max(1, at.reset - at.now),
  };
}

/**
 * What a request let through uncounted says of its window, the counter being out of reach (the
 * HTTP layer fails open): its limit and end, and no hit known, so all of it remaining.
 */
export const uncounted = (window: FixedWindow, nowMs: number): RateLimitDecision =>
  decisionOf(window, windowAt(window, nowMs), 0);

/** Counts one hit of `client` on the window at `nowMs`. */
export async function consume(
  counter: WindowCounter,
  window: FixedWindow,
  client: string,
  nowMs: number,
): Promise<RateLimitDecision> {
  const at = windowAt(window, nowMs);
  return decisionOf(
    window,
    at,
    await counter.hit(window.scope, client, at.windowStart, at.expiresAt),
  );
}

/** The 429 of a request over its client's per-minute limit, named by its window's scope. */
export const rateLimited = (decision: RateLimitDecision, scope: string): ServiceError =>
  new ServiceError('rate_limited', 'Too many requests; retry after the window resets', [], {
    retryAfterSeconds: decision.retryAfter,
    limit: scope,
  });

/** The 429 of a request over a route's own limit (per target, per client), named by its scope. */
export const routeLimited = (decision: RateLimitDecision, scope: string): ServiceError =>
  new ServiceError('rate_limited', 'Too many requests for this; retry later', [], {
    retryAfterSeconds: decision.retryAfter,
    limit: scope,
  });

/**
 * One request's hit on a window, not counted yet: a use-case that writes anyway may count it in
 * its own write instead of a write of its own, saving a round trip (a refresh counts its
 * per-client hit in its rotation; an OTP verification its per-target hit in its attempt's
 * reservation). Whatever path leaves it uncounted, the HTTP layer counts it alone afterwards:
 * either way the request is counted exactly once.
 */
export class PendingHit {
  readonly limit: number;
  /** Epoch seconds at which the window starts. */
  readonly windowStart: number;
  /** Epoch seconds after which the counter may be forgotten. */
  readonly expiresAt: number;
  private readonly at: ReturnType<typeof windowAt>;
  /** The decision once counted; `within` when a conditional write counted it under the limit. */
  private outcome: RateLimitDecision | 'within' | undefined;

  constructor(
    private readonly counter: WindowCounter,
    readonly window: FixedWindow,
    readonly client: string,
    nowMs: number,
  ) {
    this.at = windowAt(window, nowMs);
    this.windowStart = this.at.windowStart;
    this.expiresAt = this.at.expiresAt;
    this.limit = window.limit;
  }

  get counted(): boolean {
    return this.outcome !== undefined;
  }

  /** The decision, once counted with its exact count (or refused at the limit). */
  get decision(): RateLimitDecision | undefined {
    return typeof this.outcome === 'object' ? this.outcome : undefined;
  }

  /** Counts the hit alone (one atomic increment), unless it is counted already. */
  async count(): Promise<void> {
    if (this.outcome !== undefined) return;
    const count = await this.counter.hit(
      this.window.scope,
      this.client,
      this.windowStart,
      this.expiresAt,
    );
    this.outcome = decisionOf(this.window, this.at, count);
  }

  /**
   * The use-case's write counted the hit on the condition that the window then held exactly
   * `before` hits: its count is `before + 1`, exactly.
   */
  countedAfter(before: number): void {
    this.outcome = decisionOf(this.window, this.at, before + 1);
  }

  /** The use-case's write counted the hit on the condition that the window was under its limit. */
  countedWithinLimit(): void {
    this.outcome = 'within';
  }

  /** Its window as a request let through uncounted sees it (`uncounted`). */
  uncounted(): RateLimitDecision {
    return decisionOf(this.window, this.at, 0);
  }

  /** The use-case's write found the window at its limit: the request is refused. */
  refusedAtLimit(): RateLimitDecision {
    const refusal = decisionOf(this.window, this.at, this.limit + 1);
    this.outcome = refusal;
    return refusal;
  }
}
