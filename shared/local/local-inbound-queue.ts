import { inboundMessageCodec } from '../adapters/inbound-message.js';
import type { InboundQueue } from '../domain/inbound/ports.js';
import { LocalQueue, type LocalQueueOptions, type QueueWorker } from './local-queue.js';

/**
 * The local runtime's stand-in for the inbound SQS queue and its event source: accepted events go
 * to the processInboundEvent handler (the module the stack deploys) after the receiver has
 * answered.
 */
export class LocalInboundQueue extends LocalQueue implements InboundQueue {
  constructor(worker: QueueWorker, options: LocalQueueOptions = {}) {
    super(
      worker,
      { queueName: 'inbound', functionName: 'processInboundEvent', logBodies: true },
      options,
    );
  }

  async enqueue(request: Parameters<InboundQueue['enqueue']>[0]): Promise<void> {
    await this.enqueueMany([request]);
  }

  async enqueueMany(requests: Parameters<InboundQueue['enqueueMany']>[0]): Promise<void> {
    this.send(requests.map((request) => ({ body: inboundMessageCodec.encode(request) })));
  }
}
