import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { InboundQueue } from '../domain/inbound/ports.js';
import { log } from '../log.js';
import { encodeProcessingRequest } from './inbound-message.js';
import type { QueueWorker } from './local-delivery-queue.js';

const queueArn = 'arn:aws:sqs:us-east-1:000000000000:local-inbound';

export interface LocalInboundQueueOptions {
  /** How long a failed record waits before it is received again. @default 2000 */
  visibilityTimeoutMs?: number;
  /** Receives before a message is dropped to the (logged) dead-letter queue. @default 5 */
  maxReceiveCount?: number;
}

/**
 * The local runtime's stand-in for the inbound SQS queue and its event source: each message goes
 * to the processInboundEvent handler (the module the stack deploys) in a real-shaped SQSEvent,
 * after the receiver has answered; records it reports in `batchItemFailures`, or an invocation
 * that throws, come back after the visibility timeout, as SQS would redeliver them.
 */
export class LocalInboundQueue implements InboundQueue {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly worker: QueueWorker,
    private readonly options: LocalInboundQueueOptions = {},
  ) {}

  async enqueue(request: Parameters<InboundQueue['enqueue']>[0]): Promise<void> {
    this.later(randomUUID(), encodeProcessingRequest(request), Date.now(), 1, 0);
  }

  async enqueueMany(requests: Parameters<InboundQueue['enqueueMany']>[0]): Promise<void> {
    for (const request of requests) await this.enqueue(request);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(
    messageId: string,
    body: string,
    sentAt: number,
    receiveCount: number,
    delayMs: number,
  ) {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.invoke(messageId, body, sentAt, receiveCount);
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async invoke(messageId: string, body: string, sentAt: number, receiveCount: number) {
    const record: SQSRecord = {
      messageId,
      receiptHandle: `${messageId}#${receiveCount}`,
      body,
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: String(sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    };
    let failed: boolean;
    try {
      const response = (await this.worker({ Records: [record] } satisfies SQSEvent, context())) as
        | { batchItemFailures?: { itemIdentifier: string }[] }
        | undefined;
      failed = (response?.batchItemFailures ?? []).some((f) => f.itemIdentifier === messageId);
    } catch (error) {
      log.error('local inbound worker threw; the message will be received again', { error });
      failed = true;
    }
    if (!failed) return;
    if (receiveCount >= (this.options.maxReceiveCount ?? 5)) {
      log.error('inbound message moved to the dead-letter queue', { body });
      return;
    }
    this.later(
      messageId,
      body,
      sentAt,
      receiveCount + 1,
      this.options.visibilityTimeoutMs ?? 2_000,
    );
  }
}

function context(): Context {
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'processInboundEvent',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:processInboundEvent',
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/processInboundEvent',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
