import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { required } from '../config.js';
import type { InboundQueue } from '../domain/inbound/ports.js';
import { encodeProcessingRequest } from './inbound-message.js';

/** SQS's limit of entries per SendMessageBatch. */
const batchSize = 10;

/**
 * The inbound queue on SQS (INBOUND_QUEUE_URL): one SendMessage per accepted event; the sweeper's
 * re-queues go in SendMessageBatch chunks of 10.
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
        MessageBody: encodeProcessingRequest(request),
      }),
    );
  }

  /**
   * Entries SQS reports as failed are sent once more; if some still fail, the call throws (the
   * events stay due in the table and the next sweep sends them again).
   */
  async enqueueMany(requests: Parameters<InboundQueue['enqueueMany']>[0]): Promise<void> {
    const entries = requests.map(
      (request, index): SendMessageBatchRequestEntry => ({
        Id: String(index),
        MessageBody: encodeProcessingRequest(request),
      }),
    );
    const batches: SendMessageBatchRequestEntry[][] = [];
    for (let start = 0; start < entries.length; start += batchSize) {
      batches.push(entries.slice(start, start + batchSize));
    }
    await Promise.all(batches.map((batch) => this.sendBatch(batch)));
  }

  private async sendBatch(entries: SendMessageBatchRequestEntry[]): Promise<void> {
    let pending = entries;
    for (let round = 0; round < 2 && pending.length > 0; round++) {
      const { Failed } = await this.client.send(
        new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: pending }),
      );
      const failedIds = new Set((Failed ?? []).map((failure) => failure.Id));
      pending = pending.filter((entry) => failedIds.has(entry.Id));
    }
    if (pending.length > 0) throw new Error(`SQS refused ${pending.length} inbound message(s)`);
  }
}

let queueInstance: InboundQueue | undefined;

/** The inbound queue of this process: SQS unless a stand-in was installed. */
export function inboundQueue(): InboundQueue {
  queueInstance ??= new SqsInboundQueue(new SQSClient({}), required('INBOUND_QUEUE_URL'));
  return queueInstance;
}

/** Installs a stand-in (the local runtime's in-process queue, tests). */
export function useInboundQueue(replacement: InboundQueue): void {
  queueInstance = replacement;
}
