import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { inboundMessageCodec } from '../../shared/adapters/inbound-message.js';
import { SqsInboundQueue } from '../../shared/adapters/sqs-inbound-queue.js';

const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/inbound';
const sqs = mockClient(SQSClient);
const queue = new SqsInboundQueue(new SQSClient({ region: 'us-east-1' }), queueUrl);

beforeEach(() => sqs.reset());

describe('the SQS inbound queue', () => {
  it('sends one message naming the stored event', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });

    await queue.enqueue({ source: 'gateway-b', eventId: 'evt_1' });

    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: queueUrl, MessageBody: '{"source":"gateway-b","event_id":"evt_1"}' },
    ]);
  });

  it('lets a send failure reach the receiver (which answers 500 so the sender retries)', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('throttled'));
    await expect(queue.enqueue({ source: 'messaging', eventId: 'sha256:ab' })).rejects.toThrow(
      'throttled',
    );
  });

  it('re-queues for the sweeper in batches of ten', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const requests = Array.from({ length: 12 }, (_, index) => ({
      source: 'gateway-a' as const,
      eventId: `evt_${index}`,
    }));

    await queue.enqueueMany(requests);

    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input)).toEqual([
      {
        QueueUrl: queueUrl,
        Entries: requests.slice(0, 10).map((request, index) => ({
          Id: String(index),
          MessageBody: `{"source":"gateway-a","event_id":"${request.eventId}"}`,
        })),
      },
      {
        QueueUrl: queueUrl,
        Entries: [
          { Id: '10', MessageBody: '{"source":"gateway-a","event_id":"evt_10"}' },
          { Id: '11', MessageBody: '{"source":"gateway-a","event_id":"evt_11"}' },
        ],
      },
    ]);
  });

  it('sends refused batch entries once more, then fails the sweep', async () => {
    const refused = {
      Id: '1',
      Code: 'InternalError',
      SenderFault: false,
      Message: 'try again',
    };
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [refused] })
      .resolvesOnce({ Failed: [refused] });
    const requests = [
      { source: 'gateway-b' as const, eventId: 'evt_a' },
      { source: 'gateway-b' as const, eventId: 'evt_b' },
    ];

    await expect(queue.enqueueMany(requests)).rejects.toThrow('SQS refused 1 inbound message(s)');
    expect(
      sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries),
    ).toEqual([
      [
        { Id: '0', MessageBody: '{"source":"gateway-b","event_id":"evt_a"}' },
        { Id: '1', MessageBody: '{"source":"gateway-b","event_id":"evt_b"}' },
      ],
      [{ Id: '1', MessageBody: '{"source":"gateway-b","event_id":"evt_b"}' }],
    ]);
  });

  it('reads back what it wrote and nothing else', () => {
    expect(inboundMessageCodec.decode('{"source":"gateway-a","event_id":"evt_9"}')).toEqual({
      message: { source: 'gateway-a', eventId: 'evt_9' },
    });
    for (const body of [
      '',
      'null',
      '{"source":"gateway-c","event_id":"x"}',
      '{"source":"gateway-a"}',
    ]) {
      expect(inboundMessageCodec.decode(body), body).toBeUndefined();
    }
  });
});
