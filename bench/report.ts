/**
 * The shape of every measurement (one JSON document, one printed table per section) and the few
 * statistics the sections share.
 */

export type Figure = number | string | boolean | null;

/** One measured subject. An unavailable row says why instead of carrying figures. */
export interface Row {
  name: string;
  available: boolean;
  /** Why the row could not be measured, e.g. "501 not_implemented" or "module missing". */
  reason?: string;
  figures: Record<string, Figure>;
}

export interface Column {
  key: string;
  label: string;
}

export interface Section {
  id: string;
  title: string;
  columns: Column[];
  rows: Row[];
  /** How to read the figures: anchors, budgets, caveats. */
  notes: string[];
  durationSeconds?: number;
}

export const measured = (name: string, figures: Record<string, Figure>): Row => ({
  name,
  available: true,
  figures,
});

export const unavailable = (name: string, reason: string): Row => ({
  name,
  available: false,
  reason,
  figures: {},
});

/** A one-line reason from anything thrown (a child's captured output may span lines). */
export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return oneLine === '' ? 'unknown error' : oneLine.slice(0, 200);
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const mean = (samples: readonly number[]): number =>
  samples.length === 0 ? Number.NaN : samples.reduce((sum, x) => sum + x, 0) / samples.length;

/** Rounds for display and JSON alike: enough digits to compare, no float noise. */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const magnitude = Math.abs(value);
  const places = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : digits;
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
}

function cell(value: Figure | undefined): string {
  if (value === undefined || value === null) return '–';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '–';
  return String(value);
}

/** A plain-text table of one section: unavailable rows span the figure columns with their reason. */
export function renderSection(section: Section): string {
  const header = ['', ...section.columns.map((column) => column.label)];
  const lines: string[][] = section.rows.map((row) =>
    row.available
      ? [row.name, ...section.columns.map((column) => cell(row.figures[column.key]))]
      : [row.name, `not available: ${row.reason ?? 'unknown'}`],
  );
  const widths = header.map((label, index) =>
    Math.max(
      label.length,
      ...lines.filter((line) => line.length === header.length).map((line) => line[index]!.length),
    ),
  );
  const nameWidth = Math.max(widths[0]!, ...lines.map((line) => line[0]!.length));
  widths[0] = nameWidth;
  const format = (line: string[]) =>
    line.length === header.length
      ? line
          .map((text, index) =>
            // Names and a free-text last column read left to right; figures line up right.
            index === 0 || (index === line.length - 1 && !/^[\d.–-]+$/.test(text))
              ? text.padEnd(widths[index]!)
              : text.padStart(widths[index]!),
          )
          .join('  ')
          .trimEnd()
      : `${line[0]!.padEnd(nameWidth)}  ${line[1]}`;
  const took = section.durationSeconds === undefined ? '' : ` (${section.durationSeconds} s)`;
  return [
    `\n## ${section.title}${took}`,
    format(header),
    ...lines.map(format),
    ...section.notes.map((note) => `  · ${note}`),
  ].join('\n');
}

/** The same section as a Markdown table, for docs/performance.md and the README. */
export function markdownSection(section: Section): string {
  const header = `| | ${section.columns.map((column) => column.label).join(' | ')} |`;
  const rule = `|---|${section.columns.map(() => '---:').join('|')}|`;
  const rows = section.rows.map((row) =>
    row.available
      ? `| ${row.name} | ${section.columns.map((column) => cell(row.figures[column.key])).join(' | ')} |`
      : `| ${row.name} | not available: ${row.reason ?? 'unknown'} |${' |'.repeat(Math.max(0, section.columns.length - 1))}`,
  );
  return [
    `### ${section.title}`,
    '',
    header,
    rule,
    ...rows,
    '',
    ...section.notes.map((note) => `- ${note}`),
  ].join('\n');
}
