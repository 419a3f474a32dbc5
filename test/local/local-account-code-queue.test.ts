import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LocalAccountCodeQueue } from '../../shared/local/local-account-code-queue.js';

function recordingWorker(answer: (event: SQSEvent) => SQSBatchResponse) {
  const received: SQSEvent[] = [];
  const worker = async (event: SQSEvent) => {
    received.push(event);
    // Some real work: the queue is idle only once the worker has returned.
    await new Promise((done) => setTimeout(done, 20));
    return answer(event);
  };
  return { worker, received };
}

describe('the local stand-in for the account-code queue', () => {
  it('hands the worker a real-shaped SQS record and is idle once the worker is done', async () => {
    const { worker, received } = recordingWorker(() => ({ batchItemFailures: [] }));
    const local = new LocalAccountCodeQueue(worker);

    await local.request({
      kind: 'forgot_password',
      target: 'ada@example.com',
      source: '192.0.2.1',
    });
    const idle = await local.idle(2_000);

    expect(idle).toBe(true);
    expect(received).toHaveLength(1);
    expect(received[0]?.Records[0]).toMatchObject({
      body: '{"kind":"forgot_password","target":"ada@example.com","source":"192.0.2.1"}',
      eventSource: 'aws:sqs',
      attributes: { ApproximateReceiveCount: '1' },
    });
  });

  it('receives a failed record again, counting the receives', async () => {
    let calls = 0;
    const { worker, received } = recordingWorker((event) => {
      calls += 1;
      const record = event.Records[0]!;
      return { batchItemFailures: calls === 1 ? [{ itemIdentifier: record.messageId }] : [] };
    });
    const local = new LocalAccountCodeQueue(worker, { visibilityTimeoutMs: 30 });

    await local.request({ kind: 'resend_email', target: 'ada@example.com', source: '192.0.2.1' });

    expect(await local.idle(2_000)).toBe(true);
    expect(received.map((event) => event.Records[0]?.attributes.ApproximateReceiveCount)).toEqual([
      '1',
      '2',
    ]);
    expect(received[1]?.Records[0]?.messageId).toBe(received[0]?.Records[0]?.messageId);
  });

  it('keeps a record that keeps failing for 8 receives, as an outage of minutes needs, then drops it', async () => {
    const { worker, received } = recordingWorker((event) => ({
      batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }],
    }));
    const local = new LocalAccountCodeQueue(worker, { visibilityTimeoutMs: 1 });

    await local.request({ kind: 'resend_email', target: 'ada@example.com', source: '192.0.2.1' });

    expect(await local.idle(5_000)).toBe(true);
    expect(received.map((event) => event.Records[0]?.attributes.ApproximateReceiveCount)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
    ]);
  });

  it('gives up waiting for idle after the limit while a failed record waits to come back', async () => {
    const { worker } = recordingWorker((event) => ({
      batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }],
    }));
    const local = new LocalAccountCodeQueue(worker, { visibilityTimeoutMs: 60_000 });

    await local.request({ kind: 'resend_email', target: 'ada@example.com', source: '192.0.2.1' });

    expect(await local.idle(200)).toBe(false);
    local.stop();
    expect(await local.idle(200)).toBe(true);
  });
});
