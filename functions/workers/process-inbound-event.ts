import { inboundMessageCodec } from '../../shared/adapters/inbound-message.js';
import { processDependencies } from '../../shared/adapters/inbound-wiring.js';
import { processEvent } from '../../shared/domain/inbound/process-event.js';
import { queueWorker } from '../../shared/lambda/queue-worker.js';
import { log } from '../../shared/log.js';

/**
 * Processes accepted inbound events, one per SQS record. A record whose event another worker
 * holds right now comes back later; one that failed for a reason that may pass is retried.
 */
export const handler = queueWorker({
  codec: inboundMessageCodec,
  describe: (request) => ({ source: request.source, event_id: request.eventId }),
  handle: async (request) => {
    const outcome = await processEvent(processDependencies(), request);
    log.info('inbound event processed', {
      source: request.source,
      event_id: request.eventId,
      outcome,
    });
    return outcome === 'retry' ? 'later' : 'done';
  },
});
