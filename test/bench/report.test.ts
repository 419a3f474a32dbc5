import { describe, expect, it } from 'vitest';
import {
  markdownSection,
  measured,
  median,
  percentile,
  renderSection,
  type Section,
  unavailable,
} from '../../bench/report.js';

const section = (rows: Section['rows']): Section => ({
  id: 'operations',
  title: 'Per operation',
  columns: [
    { key: 'p50_ms', label: 'p50 ms' },
    { key: 'n', label: 'n' },
  ],
  rows,
  notes: ['a note'],
});

describe('bench report', () => {
  it('takes the nearest-rank percentile, so p99 of 100 samples is the 99th smallest', () => {
    const samples = Array.from({ length: 100 }, (_, index) => 100 - index);

    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
  });

  it('takes the median of an even count as the mean of the middle two', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([3, 1, 2])).toBe(2);
  });

  it('prints an operation that does not work yet as a row with its reason, next to measured ones', () => {
    const table = renderSection(
      section([
        measured('login', { p50_ms: 61.2, n: 100 }),
        unavailable('sendOtp', '501 not_implemented'),
      ]),
    );

    expect(table).toMatch(/^login\s+61\.2\s+100$/m);
    expect(table).toMatch(/^sendOtp\s+not available: 501 not_implemented$/m);
  });

  it('writes the same rows as a Markdown table', () => {
    const markdown = markdownSection(
      section([measured('login', { p50_ms: 61.2, n: 100 }), unavailable('sendOtp', 'missing')]),
    );

    expect(markdown).toContain('| login | 61.2 | 100 |');
    expect(markdown).toContain('| sendOtp | not available: missing | |');
  });
});
