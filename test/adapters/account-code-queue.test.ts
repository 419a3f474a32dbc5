import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { accountCodeMessageCodec } from '../../shared/adapters/account-code-message.js';
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
