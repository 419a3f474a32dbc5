import { advanceSystemClock, systemClock } from '../../shared/domain/clock.js';

/**
 * Moves this process's system clock to the start of the next minute, so a test that fills a
 * one-minute rate window is not split across two windows by a boundary.
 */
export function startOfNextMinute(): void {
  advanceSystemClock(60_000 - (systemClock.now() % 60_000));
}
