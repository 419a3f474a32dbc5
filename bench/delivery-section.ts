import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Figure, measured, type Row, reasonOf, type Section, unavailable } from './report.js';
import { projectRoot } from './settings.js';

/**
 * The webhooks area's delivery measurement (bench/delivery.ts, written with the delivery worker),
 * loaded by path at run time so that the rest of the bench runs while it does not exist yet.
 */
const deliveryModule = './delivery.js';

export interface DeliveryOptions {
  /** Deliveries for the throughput figure. */
  deliveries: number;
  /** Endpoints one event fans out to. */
  fanOut: number;
}

type Measure = (options: DeliveryOptions) => Promise<unknown>;

function pickMeasure(module: Record<string, unknown>): Measure {
  if (typeof module.measureDelivery === 'function') return module.measureDelivery as Measure;
  const functions = Object.values(module).filter((value) => typeof value === 'function');
  if (functions.length === 1) return functions[0] as Measure;
  throw new Error('bench/delivery.ts exports no measureDelivery function');
}

const isFigure = (value: unknown): value is Figure =>
  value === null || ['number', 'string', 'boolean'].includes(typeof value);

/** Flat figures of an object; nested objects become "outer.inner" keys. */
function flatten(value: Record<string, unknown>, prefix = ''): Record<string, Figure> {
  const figures: Record<string, Figure> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (isFigure(inner)) figures[`${prefix}${key}`] = inner;
    else if (inner !== undefined && typeof inner === 'object' && !Array.isArray(inner))
      Object.assign(figures, flatten(inner as Record<string, unknown>, `${prefix}${key}.`));
  }
  return figures;
}

/** Rows from what the measurement returned: a list of named results, or one object of figures. */
function rowsOf(result: unknown): Row[] {
  const items = Array.isArray(result) ? result : [result];
  return items.map((item, index) => {
    if (item === null || typeof item !== 'object')
      return unavailable(`result ${index + 1}`, 'not an object');
    const { name, ...figures } = item as Record<string, unknown>;
    const label =
      typeof name === 'string' ? name : items.length === 1 ? 'delivery' : `result ${index + 1}`;
    if (typeof figures.error === 'string') return unavailable(label, reasonOf(figures.error));
    return measured(label, flatten(figures));
  });
}

async function withTimeout<T>(work: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, failed) => {
    timer = setTimeout(
      () => failed(new Error(`did not finish within ${seconds} s`)),
      seconds * 1000,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Deliveries per second to a local HTTPS receiver, worker CPU per delivery, and fan-out. */
export async function deliverySection(
  options: DeliveryOptions,
  timeoutSeconds = 180,
): Promise<Section> {
  let rows: Row[];
  if (!existsSync(join(projectRoot, 'bench', 'delivery.ts'))) {
    rows = [unavailable('delivery', 'bench/delivery.ts does not exist yet (webhooks area)')];
  } else {
    try {
      const module = (await import(deliveryModule)) as Record<string, unknown>;
      rows = rowsOf(await withTimeout(pickMeasure(module)(options), timeoutSeconds));
    } catch (error) {
      rows = [unavailable('delivery', reasonOf(error))];
    }
  }
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row.figures)))];
  return {
    id: 'delivery',
    title: `Delivery (${options.deliveries} deliveries; fan-out of one event to ${options.fanOut} endpoints)`,
    columns: keys.map((key) => ({ key, label: key.replaceAll('_', ' ') })),
    rows,
    notes: [
      'Measured by bench/delivery.ts (webhooks area) through the local runtime to a local HTTPS receiver.',
    ],
  };
}
