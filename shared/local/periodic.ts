import { log } from '../log.js';

/** How often the local runtime runs each `schedule` route (every 5 minutes on AWS). */
export const localScheduleIntervalMs = 5_000;

/**
 * Runs a scheduled handler on an interval, as the stack's EventBridge rules do on AWS (every 5
 * minutes there; more often locally, so moving the clock with /_local/clock shows its effect
 * within seconds). A run never overlaps the previous one; a failure is logged and the next run
 * tries again. Returns the function that stops it.
 */
export function runPeriodically(
  name: string,
  task: () => Promise<unknown>,
  intervalMs: number,
): () => void {
  let running = false;
  const interval = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } catch (error) {
      log.error(`local ${name} failed`, { error });
    } finally {
      running = false;
    }
  }, intervalMs);
  interval.unref();
  return () => clearInterval(interval);
}
