import { describe, expect, it } from 'vitest';
import { inboundMessageCodec } from '../../shared/adapters/inbound-message.js';
import { SqsInboundQueue } from '../../shared/adapters/sqs-inbound-queue.js';
import { jsonAnswer, sqsInputs, useRecordingQueue } from '../support/aws-endpoint.js';

const recording = useRecordingQueue(
  'inbound',
  (client, queueUrl) => new SqsInboundQueue(client, queueUrl),
);
const sqs = recording.endpoint;

/** The targets (`AmazonSQS.SendMessage`, …) of the requests SQS received. */
const targets = () => sqs.requests.map(({ headers }) => headers['x-amz-target']);

describe('the SQS inbound queue', () => {
  it('sends one message naming the stored event', async () => {
    await recording.queue.enqueue({ source: 'gateway-b', eventId: 'evt_1' });

    expect(targets()).toEqual(['AmazonSQS.SendMessage']);
    expect(sqsInputs(sqs.requests)).toEqual([
      { QueueUrl: recording.queueUrl, MessageBody: '{"source":"gateway-b","event_id":"evt_1"}' },
    ]);
  });

  it('lets a send failure reach the receiver (which answers 500 so the sender retries)', async () => {
    sqs.answers = Array.from({ length: 3 }, () =>
      jsonAnswer(400, { __type: 'com.amazonaws.sqs#RequestThrottled', message: 'throttled' }),
    );
    await expect(
      recording.queue.enqueue({ source: 'messaging', eventId: 'sha256:ab' }),
    ).rejects.toThrow('throttled');
  });

  it('re-queues for the sweeper in batches of ten', async () => {
    const requests = Array.from({ length: 12 }, (_, index) => ({
      source: 'gateway-a' as const,
      eventId: `evt_${index}`,
    }));

    await recording.queue.enqueueMany(requests);

    expect(targets()).toEqual(['AmazonSQS.SendMessageBatch', 'AmazonSQS.SendMessageBatch']);
    expect(sqsInputs(sqs.requests)).toEqual([
      {
        QueueUrl: recording.queueUrl,
        Entries: requests.slice(0, 10).map((request, index) => ({
          Id: String(index),
          MessageBody: `{"source":"gateway-a","event_id":"${request.eventId}"}`,
        })),
      },
      {
        QueueUrl: recording.queueUrl,
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
    sqs.answers = [jsonAnswer(200, { Failed: [refused] }), jsonAnswer(200, { Failed: [refused] })];
    const requests = [
      { source: 'gateway-b' as const, eventId: 'evt_a' },
      { source: 'gateway-b' as const, eventId: 'evt_b' },
    ];

    await expect(recording.queue.enqueueMany(requests)).rejects.toThrow(
      'SQS refused 1 inbound message(s)',
    );
    expect(sqsInputs(sqs.requests).map((input) => input.Entries)).toEqual([
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
