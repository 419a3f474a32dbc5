import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeProcessingRequest } from '../../shared/adapters/inbound-message.js';
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

  it('reads back what it wrote and nothing else', () => {
    expect(decodeProcessingRequest('{"source":"gateway-a","event_id":"evt_9"}')).toEqual({
      source: 'gateway-a',
      eventId: 'evt_9',
    });
    for (const body of [
      '',
      'null',
      '{"source":"gateway-c","event_id":"x"}',
      '{"source":"gateway-a"}',
    ]) {
      expect(decodeProcessingRequest(body), body).toBeUndefined();
    }
  });
});
