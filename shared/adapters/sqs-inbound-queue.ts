import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { required } from '../config.js';
import type { InboundQueue } from '../domain/inbound/ports.js';
import { encodeProcessingRequest } from './inbound-message.js';

/** The inbound queue on SQS: one SendMessage per accepted event (INBOUND_QUEUE_URL). */
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
