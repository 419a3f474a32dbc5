/** What a bounded load loop achieved. */
export interface LoopResult {
  operations: number;
  seconds: number;
  perSecond: number;
  /** Per-operation wall times in ms. */
  latencies: number[];
  /** Process CPU (user + system) per operation in ms, this process only. */
  cpuMsPerOperation: number;
}

/**
 * Runs `operation` with `concurrency` in flight until `seconds` pass or `maxOperations` are done,
 * whichever first: a loop that can neither run away nor hang the bench on a fast machine.
 */
export async function loadLoop(
  operation: (index: number) => Promise<unknown>,
  options: { concurrency: number; seconds: number; maxOperations: number },
): Promise<LoopResult> {
  const latencies: number[] = [];
  const deadline = performance.now() + options.seconds * 1000;
  let next = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const worker = async () => {
    while (next < options.maxOperations && performance.now() < deadline) {
      const index = next++;
      const t0 = performance.now();
      await operation(index);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    operations: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    latencies,
    cpuMsPerOperation: (cpu.user + cpu.system) / 1000 / Math.max(1, latencies.length),
  };
}
