/**
 * Structured JSON logs, one line per record, so CloudWatch Logs Insights can filter on fields.
 * LOG_LEVEL=debug|info|warn|error|silent (default info).
 */
const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

function threshold(): number {
  const configured = process.env.LOG_LEVEL as keyof typeof levels | undefined;
  return levels[configured ?? 'info'] ?? levels.info;
}

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (levels[level] < threshold()) return;
  const line = JSON.stringify(
    { level, time: new Date().toISOString(), message, ...fields },
    (_key, value) =>
      value instanceof Error
        ? { name: value.name, message: value.message, stack: value.stack }
        : value,
  );
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
}

export const log = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write('debug', message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};
