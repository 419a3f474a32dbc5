import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { goalsSection } from '../../bench/goals.js';
import { measured, round, type Section } from '../../bench/report.js';

const delivery = (deliveriesPerSecond: number, writesPerDelivery: number): Section => ({
  id: 'delivery',
  title: 'Delivery',
  columns: [],
  rows: [
    measured('throughput (300 deliveries to 10 endpoints, after 500)', {
      deliveries_per_second: deliveriesPerSecond,
      ddb_item_writes_per_delivery: writesPerDelivery,
      cpu_ms_per_delivery: 3.9,
    }),
  ],
  notes: [],
});

const deliveriesRow = (section: Section) => section.rows.find((row) => row.name === 'deliveries/s');

describe('bench goals', () => {
  it('reads deliveries/s against the rate DynamoDB Local took the writes of deliveries alone', () => {
    const goals = goalsSection([delivery(90, 3.3)], {
      dynamoPutPerSecond: 800,
      dynamoDeliveryWritesPerSecond: 120,
    });
    expect(deliveriesRow(goals)?.figures).toMatchObject({
      measured: 90,
      anchor: '120 (DynamoDB Local allows)',
      vs_anchor: 0.75,
      met: 'NO',
    });
  });

  it('says how many deliveries a second the cores allow when the service and DynamoDB Local share them', () => {
    const goals = goalsSection([delivery(90, 3.3)], {
      dynamoDeliveryWritesPerSecond: 240,
      dynamoCpuMsPerDelivery: 6.1,
    });
    const cores = cpus().length;
    const allowed = round((cores * 1000) / (3.9 + 6.1));
    expect(goals.notes).toContain(
      `The cores allow at most ${allowed} deliveries/s here: each delivery costs the service 3.9 ms of CPU (delivery section) and DynamoDB Local 6.1 ms for its writes alone (ceiling section), and both run on these ${cores} cores — before the HTTPS receiver takes its share.`,
    );
  });

  it('falls back to the PutItem ceiling over the writes per delivery when that row is missing', () => {
    const goals = goalsSection([delivery(220, 3.3)], { dynamoPutPerSecond: 990 });
    expect(deliveriesRow(goals)?.figures).toMatchObject({
      measured: 220,
      anchor: '300 (DynamoDB Local allows)',
      met: 'yes',
    });
  });
});
