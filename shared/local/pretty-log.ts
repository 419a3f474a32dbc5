import type { LogLevel, LogRecord, LogWriter } from '../log.js';

/**
 * The local runtime's log lines on a terminal: the same records the functions write on AWS, one
 * line each, read at a glance — time, level, message, the line's own fields, then the function
 * and the start of the correlation id; an error's stack below it. Metric documents (CloudWatch
 * embedded metric format) print as `METRIC name value dimensions`. Piped output (tests, a file)
 * keeps the JSON lines (`npm start | jq` works).
 */

/** Keys every line has, shown in the tail or not at all. */
const contextKeys = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_name',
  'function_request_id',
  'xray_trace_id',
  'api_request_id',
  'correlation_id',
]);

const colours: Record<LogLevel | 'metric', string> = {
  debug: '\x1b[90m',
  info: '\x1b[36m',
  warn: '\x1b[33m',
  error: '\x1b[31m',
  metric: '\x1b[35m',
};
const dim = (text: string) => `\x1b[2m${text}\x1b[22m`;
const reset = '\x1b[0m';

const shown = (value: unknown): string => {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
};

interface MetricDocument {
  CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[];
}

function metricLine(record: LogRecord): string {
  const [directive] = (record._aws as MetricDocument).CloudWatchMetrics;
  const name = directive?.Metrics[0]?.Name ?? '?';
  const dimensions = [...new Set(directive?.Dimensions.flat())]
    .map((key) => `${key}=${shown(record[key])}`)
    .join(' ');
  return `${name} ${shown(record[name])}${dimensions === '' ? '' : ` ${dimensions}`}`;
}

function tail(record: LogRecord): string {
  const parts = [
    record.function_name,
    typeof record.correlation_id === 'string' ? record.correlation_id.slice(0, 8) : undefined,
    record.cold_start === true ? 'cold' : undefined,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? '' : `  ${dim(`[${parts.join(' · ')}]`)}`;
}

export function prettyLogWriter(out: NodeJS.WritableStream = process.stdout): LogWriter {
  return (record: LogRecord, level: LogLevel) => {
    const time = new Date().toISOString().slice(11, 23);
    const kind = '_aws' in record ? 'metric' : level;
    const label = `${colours[kind]}${kind.toUpperCase().padEnd(6)}${reset}`;
    let body: string;
    const stacks: string[] = [];
    if (kind === 'metric') {
      body = metricLine(record);
    } else {
      const fields = Object.entries(record)
        .filter(([key, value]) => !contextKeys.has(key) && value !== undefined)
        .map(([key, value]) => {
          if (value instanceof Error && value.stack !== undefined) stacks.push(value.stack);
          return `${key}=${shown(value)}`;
        });
      body = [String(record.message), ...fields].join('  ');
    }
    const indented = stacks.map((stack) => `\n${dim(stack.replace(/^/gm, '    '))}`).join('');
    out.write(`${dim(time)} ${label} ${body}${tail(record)}${indented}\n`);
  };
}
