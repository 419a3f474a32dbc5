import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SqsDeliveryQueue } from '../../shared/adapters/sqs-delivery-queue.js';
import { jsonAnswer, sqsInputs, useRecordingQueue } from '../support/aws-endpoint.js';

const recording = useRecordingQueue(
  'deliveries',
  (client, queueUrl) => new SqsDeliveryQueue(client, queueUrl),
);
const sqs = recording.endpoint;

const deliveryId = (index: number) => `dlv_${String(index).padStart(20, 'a').replace(/\d/g, 'b')}`;
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('the SQS delivery queue', () => {
  it('sends attempt messages in batches of ten with their delays', async () => {
    const messages = Array.from({ length: 23 }, (_, index) => ({
      deliveryId: deliveryId(index),
      attempt: 1,
      delaySeconds: index === 0 ? 300 : 0,
    }));

    await recording.queue.enqueue(messages);

    // The three batches go at once: in whatever order they arrive.
    const calls = sqsInputs(sqs.requests) as { Entries: { Id: string }[] }[];
    expect(calls.map((call) => call.Entries.length).sort((a, b) => a - b)).toEqual([3, 10, 10]);
    expect(calls.find((call) => call.Entries.some((entry) => entry.Id === '0'))).toEqual({
      QueueUrl: recording.queueUrl,
      Entries: expect.arrayContaining([
        {
          Id: '0',
          MessageBody: JSON.stringify({ delivery_id: deliveryId(0), attempt: 1 }),
          DelaySeconds: 300,
        },
      ]),
    });
  });

  it('caps a delay at SQS’s 900 seconds', async () => {
    await recording.queue.enqueue([{ deliveryId: deliveryId(1), attempt: 2, delaySeconds: 1800 }]);
    expect(sqsInputs(sqs.requests)).toEqual([
      {
        QueueUrl: recording.queueUrl,
        Entries: [
          {
            Id: '0',
            MessageBody: JSON.stringify({ delivery_id: deliveryId(1), attempt: 2 }),
            DelaySeconds: 900,
          },
        ],
      },
    ]);
  });

  it('resends only the entries SQS reported as failed', async () => {
    sqs.answers = [
      jsonAnswer(200, {
        Successful: [
          {
            Id: '0',
            MessageId: 'm0',
            MD5OfMessageBody: md5(JSON.stringify({ delivery_id: deliveryId(1), attempt: 1 })),
          },
        ],
        Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }],
      }),
    ];

    await recording.queue.enqueue([
      { deliveryId: deliveryId(1), attempt: 1, delaySeconds: 0 },
      { deliveryId: deliveryId(2), attempt: 1, delaySeconds: 0 },
    ]);

    const second = sqsInputs(sqs.requests)[1];
    expect(second?.Entries).toEqual([
      {
        Id: '1',
        MessageBody: JSON.stringify({ delivery_id: deliveryId(2), attempt: 1 }),
        DelaySeconds: 0,
      },
    ]);
  });

  it('throws when entries keep failing, so the caller knows they were not queued', async () => {
    sqs.answers = Array.from({ length: 2 }, () =>
      jsonAnswer(200, { Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError' }] }),
    );
    await expect(
      recording.queue.enqueue([{ deliveryId: deliveryId(1), attempt: 1, delaySeconds: 0 }]),
    ).rejects.toThrow(/refused 1/);
  });
});
