import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { MessageCodec } from '../adapters/message-codec.js';
import { log, withLogContext } from '../log.js';
import { instrumented } from './invocation.js';

/**
 * What became of one record: `done` (handled, or refused for good), or `later` — nothing failed,
 * but the record must come back (another worker holds its event right now).
 */
export type RecordOutcome = 'done' | 'later';

export interface QueueWork<TMessage> {
  /** The queue's body format; a body it cannot decode is dropped with an error line. */
  codec: MessageCodec<TMessage>;
  /** Handles one message; a throw means a failure SQS should retry. */
  handle: (message: TMessage) => Promise<RecordOutcome>;
  /**
   * What the failure line may say about a message (ids, a kind): never a person's email or phone.
   * @default nothing beyond the record's ids
   */
  describe?: (message: TMessage) => Record<string, unknown>;
}

/**
 * Thrown when every record of a batch failed, as Powertools' batch utility throws its
 * FullBatchFailureError: the invocation then counts as an error, so the worker's Errors alarm
 * fires while nothing gets through, instead of staying silent until the dead-letter queue fills.
 * SQS redelivers the whole batch either way.
 */
export class BatchFailedError extends Error {
  override readonly name = 'BatchFailedError';
}

type RecordResult = 'done' | 'dropped' | 'later' | 'failed';

/**
 * The one SQS worker of the service (ReportBatchItemFailures on every event source): each record
 * of the batch is decoded and handled in parallel, with its message's correlation id on every
 * log line written meanwhile; a record that failed or must come `later` is reported in
 * `batchItemFailures`, so SQS redelivers only it.
 */
export function queueWorker<TMessage>(
  work: QueueWork<TMessage>,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const runRecord = async (record: SQSRecord): Promise<RecordResult> => {
    const decoded = work.codec.decode(record.body);
    if (decoded === undefined) {
      // Not a body this service writes: retrying would fail the same way until the DLQ.
      log.error('dropped a queue message that does not decode', {
        message_id: record.messageId,
        queue: record.eventSourceARN,
      });
      return 'dropped';
    }
    const context = {
      // A message sent without one (before correlation ids existed) is its own start.
      correlation_id: decoded.correlationId ?? record.messageId,
      message_id: record.messageId,
    };
    return withLogContext(context, async () => {
      const about = work.describe?.(decoded.message) ?? {};
      log.debug('queue message received', {
        ...about,
        receive_count: Number(record.attributes?.ApproximateReceiveCount ?? 0),
      });
      try {
        return await work.handle(decoded.message);
      } catch (error) {
        log.error('queue message failed; SQS will deliver it again', { ...about, error });
        return 'failed';
      }
    });
  };

  return instrumented(async (event) => {
    const results = await Promise.all(event.Records.map(runRecord));
    const failed = results.filter((result) => result === 'failed').length;
    if (failed > 0 && failed === results.length) {
      throw new BatchFailedError(`all ${failed} record(s) of the batch failed`);
    }
    return {
      batchItemFailures: event.Records.filter(
        (_, index) => results[index] === 'failed' || results[index] === 'later',
      ).map((record) => ({ itemIdentifier: record.messageId })),
    };
  });
}
