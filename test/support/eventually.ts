/**
 * Polls `probe` until it answers something other than undefined, and returns that: how a test
 * waits for an effect that takes an unknown time, instead of sleeping a fixed delay. Fails after
 * `seconds` (generous: the machine is shared).
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, seconds = 30): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached within ${seconds} s`);
    await new Promise((resume) => setTimeout(resume, 100));
  }
}
