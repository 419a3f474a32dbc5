import { type LogRecord, useLogWriter } from '../../shared/log.js';

export interface RecordedLogs {
  /** Every record written since `recordLogs()`, metric documents included. */
  readonly records: LogRecord[];
  /** Restores the writer and LOG_LEVEL in place before. */
  stop(): void;
}

/** Captures what the service logs (at debug, whatever the run's LOG_LEVEL) instead of printing it. */
export function recordLogs(): RecordedLogs {
  const records: LogRecord[] = [];
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'debug';
  const previous = useLogWriter((record) => records.push(record));
  return {
    records,
    stop: () => {
      useLogWriter(previous);
      if (level === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = level;
    },
  };
}
