import type { SQSClient } from '@aws-sdk/client-sqs';
import { required } from '../config.js';
import type { DeliveryQueue, EnqueuedAttempt } from '../domain/webhooks/ports.js';
import { deliveryQueueCodec } from './attempt-message.js';
import { sqs } from './sqs.js';
import { sendMessageBatches } from './sqs-batches.js';

/** SQS's longest message delay. */
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
    await sendMessageBatches(
      this.client,
      this.queueUrl,
      messages.map((message) => ({
        MessageBody: deliveryQueueCodec.encode(message),
        DelaySeconds: Math.min(maxDelaySeconds, Math.max(0, Math.ceil(message.delaySeconds))),
      })),
      'delivery',
    );
  }
}

let queueInstance: DeliveryQueue | undefined;

/** The delivery queue of this process: SQS (DELIVERY_QUEUE_URL) unless a stand-in was installed. */
export function deliveryQueue(): DeliveryQueue {
  queueInstance ??= new SqsDeliveryQueue(sqs(), required('DELIVERY_QUEUE_URL'));
  return queueInstance;
}

/** Installs a stand-in (the local runtime's in-process queue, tests). */
export function useDeliveryQueue(replacement: DeliveryQueue): void {
  queueInstance = replacement;
}
