import type { ProfileSummary } from './cpu-profile.js';
import { type DeliveryOptions, measureDelivery } from './delivery.js';
import { type Figure, measured, type Row, reasonOf, type Section, unavailable } from './report.js';

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

/**
 * Deliveries per second to a local HTTPS receiver after a warm-up, worker CPU, DynamoDB calls and
 * item writes per delivery, and fan-out (bench/delivery.ts); and where the CPU went.
 */
export async function deliverySection(
  options: DeliveryOptions,
  timeoutSeconds = 300,
): Promise<{ section: Section; profile?: ProfileSummary }> {
  let rows: Row[];
  let profile: ProfileSummary | undefined;
  try {
    const result = await withTimeout(measureDelivery(options), timeoutSeconds);
    rows =
      result.error === undefined
        ? result.rows.map(({ name, ...figures }) =>
            measured(name, figures as Record<string, Figure>),
          )
        : [unavailable('delivery', reasonOf(result.error))];
    profile = result.profile;
  } catch (error) {
    rows = [unavailable('delivery', reasonOf(error))];
  }
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row.figures)))];
  return {
    section: {
      id: 'delivery',
      title: `Delivery (${options.deliveries} deliveries after ${options.warmUp} of warm-up; fan-out of one event to ${options.fanOut} endpoints)`,
      columns: keys.map((key) => ({ key, label: key.replaceAll('_', ' ') })),
      rows,
      notes: [
        'Measured by bench/delivery.ts through the local runtime (a child process, its CPU read from /proc) to a local HTTPS receiver; DynamoDB calls and item writes counted in that process over the same phase, publication and fan-out included.',
      ],
    },
    profile,
  };
}
