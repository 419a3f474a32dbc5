import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of other processes, read from Linux's /proc: the service child of the delivery
 * section, and DynamoDB Local's Java process, whose CPU no in-process counter sees.
 */

/** User + system CPU ms a process has used so far (clock ticks of 10 ms, as Linux counts them). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The pid of the DynamoDB Local (Java) serving `endpoint`, or undefined where /proc cannot tell
 * (another OS, a DynamoDB Local not started by this machine).
 */
export function dynamoLocalPid(endpoint: string): number | undefined {
  const port = new URL(endpoint).port;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let command: string;
      try {
        command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      } catch {
        continue; // the process ended while we looked
      }
      if (command.includes('DynamoDBLocal.jar') && command.includes(`\0-port\0${port}\0`)) {
        return Number(entry);
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * Share of one core a process used while `work` ran, in percent (100 = one core busy
 * throughout), with what `work` returned; undefined share when the pid is unknown.
 */
export async function coreShareOf<T>(
  pid: number | undefined,
  work: () => Promise<T>,
): Promise<{ result: T; corePercent: number | undefined }> {
  const before = pid === undefined ? undefined : processCpuMs(pid);
  const started = performance.now();
  const result = await work();
  const elapsedMs = performance.now() - started;
  const corePercent =
    pid === undefined || before === undefined
      ? undefined
      : Math.round(((processCpuMs(pid) - before) / elapsedMs) * 100);
  return { result, corePercent };
}
