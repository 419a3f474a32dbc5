import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { required } from '../config.js';
import type { InboundQueue } from '../domain/inbound/ports.js';
import { inboundMessageCodec } from './inbound-message.js';
import { sqs } from './sqs.js';
import { sendMessageBatches } from './sqs-batches.js';

/**
 * The inbound queue on SQS (INBOUND_QUEUE_URL): one SendMessage per accepted event; the sweeper's
 * re-queues go in SendMessageBatch chunks of 10 (a refused entry is sent once more, then the call
 * throws and the events stay due for the next sweep).
 */
export class SqsInboundQueue implements InboundQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(request: Parameters<InboundQueue['enqueue']>[0]): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: inboundMessageCodec.encode(request),
      }),
    );
  }

  /**
   * Entries SQS reports as failed are sent once more; if some still fail, the call throws (the
   * events stay due in the table and the next sweep sends them again).
   */
  async enqueueMany(requests: Parameters<InboundQueue['enqueueMany']>[0]): Promise<void> {
    await sendMessageBatches(
      this.client,
      this.queueUrl,
      requests.map((request) => ({ MessageBody: inboundMessageCodec.encode(request) })),
      'inbound',
    );
  }
}

let queueInstance: InboundQueue | undefined;

/** The inbound queue of this process: SQS unless a stand-in was installed. */
export function inboundQueue(): InboundQueue {
  queueInstance ??= new SqsInboundQueue(sqs(), required('INBOUND_QUEUE_URL'));
  return queueInstance;
}

/** Installs a stand-in (the local runtime's in-process queue, tests). */
export function useInboundQueue(replacement: InboundQueue): void {
  queueInstance = replacement;
}
