/**
 * Time is a seam: every rule that depends on "now" (OTP expiry, token lifetimes, rate windows,
 * the retry ladder) reads it from here, so tests can move time instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

let offsetMs = 0;

/** The real clock, plus an offset only the local runtime moves (`POST /_local/clock`). */
export const systemClock: Clock = { now: () => Date.now() + offsetMs };

/** Moves the system clock forward. Only for the local runtime and tests. */
export function advanceSystemClock(milliseconds: number): void {
  offsetMs += milliseconds;
}

/** A clock the tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
  }
}

export const epochSeconds = (milliseconds: number): number => Math.floor(milliseconds / 1000);
