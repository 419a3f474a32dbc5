import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { required } from '../config.js';
import type { DeliveryQueue, EnqueuedAttempt } from '../domain/webhooks/ports.js';
import { encodeAttemptMessage } from './attempt-message.js';

/** SQS's limits: 10 entries per SendMessageBatch, delays up to 900 seconds. */
const batchSize = 10;
const maxDelaySeconds = 900;

/**
 * The delivery queue on SQS: SendMessageBatch in chunks of 10. Entries SQS reports as failed are
 * sent once more; if some still fail, the call throws (the deliveries stay due in the table, and
 * the sweeper re-queues them).
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(messages: EnqueuedAttempt[]): Promise<void> {
    const entries = messages.map(
      (message, index): SendMessageBatchRequestEntry => ({
        Id: String(index),
        MessageBody: encodeAttemptMessage(message),
        DelaySeconds: Math.min(maxDelaySeconds, Math.max(0, Math.ceil(message.delaySeconds))),
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
    if (pending.length > 0) {
      throw new Error(`SQS refused ${pending.length} delivery message(s)`);
    }
  }
}

let queueInstance: DeliveryQueue | undefined;

/** The delivery queue of this process: SQS (DELIVERY_QUEUE_URL) unless a stand-in was installed. */
export function deliveryQueue(): DeliveryQueue {
  queueInstance ??= new SqsDeliveryQueue(new SQSClient({}), required('DELIVERY_QUEUE_URL'));
  return queueInstance;
}

/** Installs a stand-in (the local runtime's in-process queue, tests). */
export function useDeliveryQueue(replacement: DeliveryQueue): void {
  queueInstance = replacement;
}
