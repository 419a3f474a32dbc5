import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SqsDeliveryQueue } from '../../shared/adapters/sqs-delivery-queue.js';

const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/deliveries';
const sqs = mockClient(SQSClient);
const queue = new SqsDeliveryQueue(new SQSClient({ region: 'us-east-1' }), queueUrl);

const deliveryId = (index: number) => `dlv_${String(index).padStart(20, 'a').replace(/\d/g, 'b')}`;

beforeEach(() => sqs.reset());

describe('the SQS delivery queue', () => {
  it('sends attempt messages in batches of ten with their delays', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const messages = Array.from({ length: 23 }, (_, index) => ({
      deliveryId: deliveryId(index),
      attempt: 1,
      delaySeconds: index === 0 ? 300 : 0,
    }));

    await queue.enqueue(messages);

    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 3]);
    expect(calls[0]?.args[0].input).toEqual({
      QueueUrl: queueUrl,
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
    sqs.on(SendMessageBatchCommand).resolves({});
    await queue.enqueue([{ deliveryId: deliveryId(1), attempt: 2, delaySeconds: 1800 }]);
    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input)).toEqual([
      {
        QueueUrl: queueUrl,
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
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [{ Id: '0', MessageId: 'm0', MD5OfMessageBody: 'x' }],
        Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }],
      })
      .resolves({ Successful: [{ Id: '1', MessageId: 'm1', MD5OfMessageBody: 'x' }] });

    await queue.enqueue([
      { deliveryId: deliveryId(1), attempt: 1, delaySeconds: 0 },
      { deliveryId: deliveryId(2), attempt: 1, delaySeconds: 0 },
    ]);

    const second = sqs.commandCalls(SendMessageBatchCommand)[1]?.args[0].input;
    expect(second?.Entries).toEqual([
      {
        Id: '1',
        MessageBody: JSON.stringify({ delivery_id: deliveryId(2), attempt: 1 }),
        DelaySeconds: 0,
      },
    ]);
  });

  it('throws when entries keep failing, so the caller knows they were not queued', async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError' }],
    });
    await expect(
      queue.enqueue([{ deliveryId: deliveryId(1), attempt: 1, delaySeconds: 0 }]),
    ).rejects.toThrow(/refused 1/);
  });
});
