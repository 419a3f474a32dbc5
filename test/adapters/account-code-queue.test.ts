import { describe, expect, it } from 'vitest';
import { accountCodeMessageCodec } from '../../shared/adapters/account-code-message.js';
import { SqsAccountCodeQueue } from '../../shared/adapters/sqs-account-code-queue.js';
import { jsonAnswer, sqsInputs, useRecordingQueue } from '../support/aws-endpoint.js';

const recording = useRecordingQueue(
  'account-code',
  (client, queueUrl) => new SqsAccountCodeQueue(client, queueUrl),
);
const sqs = recording.endpoint;

describe('the SQS account-code queue', () => {
  it('sends one message naming the work and its target, and no code', async () => {
    await recording.queue.request({
      kind: 'forgot_password',
      target: 'ada@example.com',
      source: '192.0.2.1',
    });
    await recording.queue.request({
      kind: 'resend_mobile',
      target: '+14155550123',
      source: '2001:db8::1',
    });

    expect(sqsInputs(sqs.requests)).toEqual([
      {
        QueueUrl: recording.queueUrl,
        MessageBody: '{"kind":"forgot_password","target":"ada@example.com","source":"192.0.2.1"}',
      },
      {
        QueueUrl: recording.queueUrl,
        MessageBody: '{"kind":"resend_mobile","target":"+14155550123","source":"2001:db8::1"}',
      },
    ]);
  });

  it('lets a send failure reach the request (a 500, nothing was promised)', async () => {
    sqs.answers = [
      jsonAnswer(400, { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'no queue' }),
    ];
    await expect(
      recording.queue.request({ kind: 'resend_email', target: 'ada@example.com', source: 'x' }),
    ).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });

  it('reads back what it wrote and nothing else', () => {
    expect(
      accountCodeMessageCodec.decode(
        '{"kind":"resend_email","target":"ada@example.com","source":"192.0.2.1"}',
      ),
    ).toEqual({
      message: { kind: 'resend_email', target: 'ada@example.com', source: '192.0.2.1' },
    });
    // A message queued before sources were counted: all such count as one source.
    expect(
      accountCodeMessageCodec.decode('{"kind":"resend_email","target":"ada@example.com"}'),
    ).toEqual({ message: { kind: 'resend_email', target: 'ada@example.com', source: 'unqueued' } });
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
