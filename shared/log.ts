import { AsyncLocalStorage } from 'node:async_hooks';
import { serviceName } from './config.js';

/**
 * Structured JSON logs, one line per record, so CloudWatch Logs Insights can filter on fields.
 * LOG_LEVEL=debug|info|warn|error|silent (default info).
 *
 * The keys are Powertools for AWS Lambda Logger's (`level`, `message`, `timestamp`, `service`,
 * `cold_start`, `function_name`, `function_request_id`, `xray_trace_id`, `correlation_id`), so
 * queries written for Powertools work here. The library itself is not used (docs/operations.md,
 * "Why not Powertools"): its keys live in module scope, where the parallel records of one batch
 * and the concurrent invocations of the local runtime would overwrite each other's correlation
 * id; here they live in an AsyncLocalStorage context, one per invocation and one per record.
 *
 * Nothing secret goes in a line: no code, password, token, secret, or whole email or phone
 * (test/e2e/log-scan.test.ts reads the logs of a whole session for them).
 */
const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = Exclude<keyof typeof levels, 'silent'>;

/**
 * What every line written inside one invocation, or one queue record, carries besides its own
 * fields: set by the Lambda edge (shared/lambda/invocation.ts), never by domain code.
 */
export interface LogContext {
  cold_start?: boolean;
  function_name?: string;
  /** Lambda's request id of the invocation. */
  function_request_id?: string;
  /** The Root of `_X_AMZN_TRACE_ID`: the X-Ray trace of the invocation. */
  xray_trace_id?: string;
  /** The id the caller was answered in X-Request-Id (API Gateway's or the Function URL's). */
  api_request_id?: string;
  /**
   * The request that started the work: the API request id on the API, the receiver's request id
   * on a Function URL, and the id carried in the queue message by a worker that finishes it.
   */
  correlation_id?: string;
  /** The SQS message a worker is handling. */
  message_id?: string;
}

/** A record as written: the standard keys, the context, then the line's own fields. */
export type LogRecord = Record<string, unknown>;

/** Where records go: JSON lines on stdout/stderr unless the local runtime installs another. */
export type LogWriter = (record: LogRecord, level: LogLevel) => void;

const contexts = new AsyncLocalStorage<LogContext>();

/** Runs `work` with a fresh context: an invocation starts from nothing it did not set. */
export function startLogContext<T>(context: LogContext, work: () => T): T {
  return contexts.run(context, work);
}

/** Runs `work` with the current context plus `fields` (a queue record inside its invocation). */
export function withLogContext<T>(fields: LogContext, work: () => T): T {
  return contexts.run({ ...contexts.getStore(), ...fields }, work);
}

/** The correlation id of the work in progress, carried on into the queue messages it sends. */
export const currentCorrelationId = (): string | undefined => contexts.getStore()?.correlation_id;

function threshold(): number {
  const configured = process.env.LOG_LEVEL as keyof typeof levels | undefined;
  return levels[configured ?? 'info'] ?? levels.info;
}

/**
 * What an AWS SDK error says of the call that failed (its `$metadata`): the request id AWS
 * support asks for, the HTTP status, and how many attempts the SDK made.
 */
interface AwsCallMetadata {
  requestId?: string;
  httpStatusCode?: number;
  attempts?: number;
}

function awsCallOf(error: Error): Record<string, unknown> {
  const metadata = (error as { $metadata?: AwsCallMetadata }).$metadata;
  if (metadata === undefined) return {};
  return {
    aws_request_id: metadata.requestId,
    aws_http_status: metadata.httpStatusCode,
    aws_attempts: metadata.attempts,
  };
}

/**
 * Errors as their name, message, stack and cause, and for a failed AWS call its request id,
 * status and attempts: JSON.stringify would write `{}`.
 */
const serialised = (_key: string, value: unknown): unknown =>
  value instanceof Error
    ? {
        name: value.name,
        message: value.message,
        ...awsCallOf(value),
        stack: value.stack,
        cause: value.cause,
      }
    : value;

/** The JSON line of a record, as CloudWatch Logs receives it. */
export const jsonLineOf = (record: LogRecord): string => JSON.stringify(record, serialised);

/** The JSON line of a record; warnings and errors on stderr, as Lambda's own lines are. */
const jsonLogWriter: LogWriter = (record, level) => {
  const line = `${jsonLineOf(record)}\n`;
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line);
};

let writer: LogWriter = jsonLogWriter;

/** Replaces where records go (the local runtime's terminal output); returns the previous one. */
export function useLogWriter(replacement: LogWriter): LogWriter {
  const previous = writer;
  writer = replacement;
  return previous;
}

function write(level: LogLevel, message: string, fields: Record<string, unknown>): void {
  if (levels[level] < threshold()) return;
  writer(
    {
      level: level.toUpperCase(),
      message,
      timestamp: new Date().toISOString(),
      service: serviceName(),
      ...contexts.getStore(),
      ...fields,
    },
    level,
  );
}

/**
 * Writes `record` as it is, with the context but no level or message, whatever LOG_LEVEL says
 * short of `silent`: a metric document (CloudWatch embedded metric format), which must reach
 * CloudWatch even when info lines are off.
 */
export function writeRecord(record: LogRecord): void {
  if (threshold() >= levels.silent) return;
  writer({ service: serviceName(), ...contexts.getStore(), ...record }, 'info');
}

export const log = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write('debug', message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};
