import type { InboundQueue } from '../domain/inbound/ports.js';
import { inboundMessageCodec } from './inbound-message.js';
import { LocalMessageQueue, type LocalMessageQueueOptions, type QueueWorker } from './local-sqs.js';

/**
 * The local runtime's stand-in for the inbound SQS queue and its event source: each message goes
 * to the processInboundEvent handler (the module the stack deploys) after the receiver has
 * answered, with SQS's redelivery.
 */
export class LocalInboundQueue extends LocalMessageQueue implements InboundQueue {
  constructor(worker: QueueWorker, options: LocalMessageQueueOptions = {}) {
    super(
      worker,
      { queueName: 'inbound', functionName: 'processInboundEvent', logBodies: true },
      options,
    );
  }

  async enqueue(request: Parameters<InboundQueue['enqueue']>[0]): Promise<void> {
    this.send(inboundMessageCodec.encode(request));
  }

  async enqueueMany(requests: Parameters<InboundQueue['enqueueMany']>[0]): Promise<void> {
    for (const request of requests) await this.enqueue(request);
  }
}
