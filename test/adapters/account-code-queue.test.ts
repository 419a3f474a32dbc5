import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { accountCodeMessageCodec } from '../../shared/adapters/account-code-message.js';
import { LocalAccountCodeQueue } from '../../shared/adapters/local-account-code-queue.js';
import { SqsAccountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';

const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/account-code';
const sqs = mockClient(SQSClient);
const queue = new SqsAccountCodeQueue(new SQSClient({ region: 'us-east-1' }), queueUrl);

beforeEach(() => sqs.reset());

describe('the SQS account-code queue', () => {
  it('sends one message naming the work and its target, and no code', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });

    await queue.request({ kind: 'forgot_password', target: 'ada@example.com' });
    await queue.request({ kind: 'resend_mobile', target: '+14155550123' });

    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      {
        QueueUrl: queueUrl,
        MessageBody: '{"kind":"forgot_password","target":"ada@example.com"}',
      },
      { QueueUrl: queueUrl, MessageBody: '{"kind":"resend_mobile","target":"+14155550123"}' },
    ]);
  });

  it('lets a send failure reach the request (a 500, nothing was promised)', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('throttled'));
    await expect(
      queue.request({ kind: 'resend_email', target: 'ada@example.com' }),
    ).rejects.toThrow('throttled');
  });

  it('reads back what it wrote and nothing else', () => {
    expect(
      accountCodeMessageCodec.decode('{"kind":"resend_email","target":"ada@example.com"}'),
    ).toEqual({ message: { kind: 'resend_email', target: 'ada@example.com' } });
    for (const body of [
      '',
      'null',
      '[]',
      '{"kind":"send_anything","target":"ada@example.com"}',
      '{"kind":"forgot_password"}',
      '{"kind":"forgot_password","target":""}',
      `{"kind":"forgot_password","target":"${'a'.repeat(400)}"}`,
    ]) {
      expect(accountCodeMessageCodec.decode(body), body).toBeUndefined();
    }
  });
});

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

    await local.request({ kind: 'forgot_password', target: 'ada@example.com' });
    const idle = await local.idle(2_000);

    expect(idle).toBe(true);
    expect(received).toHaveLength(1);
    expect(received[0]?.Records[0]).toMatchObject({
      body: '{"kind":"forgot_password","target":"ada@example.com"}',
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

    await local.request({ kind: 'resend_email', target: 'ada@example.com' });

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

    await local.request({ kind: 'resend_email', target: 'ada@example.com' });

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

    await local.request({ kind: 'resend_email', target: 'ada@example.com' });

    expect(await local.idle(200)).toBe(false);
    local.stop();
    expect(await local.idle(200)).toBe(true);
  });
});
