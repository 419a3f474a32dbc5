import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { decodeProcessingRequest } from '../../shared/adapters/inbound-message.js';
import { processDependencies } from '../../shared/adapters/inbound-wiring.js';
import { processEvent } from '../../shared/domain/inbound/process-event.js';
import { log } from '../../shared/log.js';

/**
 * Processes accepted inbound events, one per SQS record. Records that failed for a reason that may
 * pass (or whose event another worker holds right now) are reported in `batchItemFailures`, so SQS
 * redelivers only those (ReportBatchItemFailures).
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = processDependencies();
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      const request = decodeProcessingRequest(record.body);
      if (request === undefined) {
        log.error('dropped an inbound message this service did not write', {
          messageId: record.messageId,
        });
        return undefined;
      }
      try {
        const outcome = await processEvent(deps, request);
        log.info('inbound event processed', { ...request, outcome });
        return outcome === 'retry' ? record.messageId : undefined;
      } catch (error) {
        log.error('inbound event processing failed; it will be retried', { ...request, error });
        return record.messageId;
      }
    }),
  );
  return {
    batchItemFailures: failures
      .filter((id): id is string => id !== undefined)
      .map((itemIdentifier) => ({ itemIdentifier })),
  };
};
