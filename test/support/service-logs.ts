import type { LocalService } from './local-service.js';

/** One structured line the service wrote (a log record, or a metric document). */
export type LogLine = Record<string, unknown> & {
  message?: string;
  correlation_id?: string;
  function_name?: string;
};

/** Every JSON line the service has printed so far, in order. */
export function logLines(service: LocalService): LogLine[] {
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}
