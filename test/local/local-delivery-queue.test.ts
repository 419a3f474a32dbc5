import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deliveryWorkerSizes } from '../../shared/deployment-sizes.js';
import { advanceSystemClock, systemClock } from '../../shared/domain/clock.js';
import {
  LocalDeliveryQueue,
  LocalRetryScheduler,
} from '../../shared/local/local-delivery-queue.js';
import { eventually } from '../support/eventually.js';

const deliveryId = 'dlv_abcdefghijklmnopqrst';

function recordingWorker(
  answer: (event: SQSEvent) => SQSBatchResponse | Promise<SQSBatchResponse> | Promise<never>,
) {
  const received: { event: SQSEvent; at: number }[] = [];
  const worker = async (event: SQSEvent) => {
    received.push({ event, at: Date.now() });
    return answer(event);
  };
  return { worker, received };
}

describe('the local stand-in for the SQS delivery queue', () => {
  it('hands the worker batches and runs them at once, sized as the stack sizes the delivery worker', async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const { worker, received } = recordingWorker(async () => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((done) => setTimeout(done, 20));
      inFlight -= 1;
      return { batchItemFailures: [] };
    });
    const queue = new LocalDeliveryQueue(worker);
    const count = deliveryWorkerSizes.batchSize * deliveryWorkerSizes.maxConcurrency * 2;

    await queue.enqueue(
      Array.from({ length: count }, (_, index) => ({
        deliveryId,
        attempt: index,
        delaySeconds: 0,
      })),
    );
    await queue.idle();

    const sizes = received.map(({ event }) => event.Records.length);
    expect(sizes.every((size) => size === deliveryWorkerSizes.batchSize)).toBe(true);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(count);
    expect(mostInFlight).toBe(deliveryWorkerSizes.maxConcurrency);
  });

  it('hands the worker real-shaped SQS records after the message delay', async () => {
    const { worker, received } = recordingWorker(() => ({ batchItemFailures: [] }));
    const queue = new LocalDeliveryQueue(worker);
    const sentAt = Date.now();

    await queue.enqueue([{ deliveryId, attempt: 2, delaySeconds: 1 }]);
    await queue.idle();

    expect(received).toHaveLength(1);
    expect((received[0]?.at ?? 0) - sentAt).toBeGreaterThanOrEqual(950);
    expect(received[0]?.event.Records[0]).toMatchObject({
      body: JSON.stringify({ delivery_id: deliveryId, attempt: 2 }),
      eventSource: 'aws:sqs',
      attributes: { ApproximateReceiveCount: '1' },
    });
  });

  it('receives again the records the worker reported as failed, and only those', async () => {
    let calls = 0;
    const { worker, received } = recordingWorker((event) => {
      calls += 1;
      const first = event.Records[0];
      return {
        batchItemFailures: calls === 1 && first ? [{ itemIdentifier: first.messageId }] : [],
      };
    });
    const queue = new LocalDeliveryQueue(worker, { visibilityTimeoutMs: 50 });

    await queue.enqueue([
      { deliveryId, attempt: 1, delaySeconds: 0 },
      { deliveryId: 'dlv_bbbbbbbbbbbbbbbbbbbb', attempt: 1, delaySeconds: 0 },
    ]);
    await queue.idle();

    expect(received.map(({ event }) => event.Records.length)).toEqual([2, 1]);
    expect(received[1]?.event.Records[0]?.attributes.ApproximateReceiveCount).toBe('2');
  });

  it("puts a due minute's wake-up on the queue once the service clock reaches it, once per minute", async () => {
    const { worker, received } = recordingWorker(() => ({ batchItemFailures: [] }));
    const queue = new LocalDeliveryQueue(worker);
    const scheduler = new LocalRetryScheduler(queue, 10);
    const dueMinute = Math.floor(systemClock.now() / 60_000) * 60_000 + 120_000;

    await scheduler.wakeAt(dueMinute);
    await scheduler.wakeAt(dueMinute);
    await new Promise((resume) => setTimeout(resume, 100));
    expect(received).toEqual([]);
    advanceSystemClock(180_000);
    await eventually(async () => (received.length > 0 ? true : undefined));
    await queue.idle();
    scheduler.stop();

    expect(received.map(({ event }) => JSON.parse(event.Records[0]?.body ?? '{}'))).toEqual([
      { due_minute: new Date(dueMinute).toISOString() },
    ]);
  });
});
