import * as v from 'valibot';
import { inboundSources, type ProcessingRequest } from '../domain/inbound/model.js';
import { messageCodec } from './message-codec.js';

/** The inbound queue's message body: which stored event to process (the body stays in the table). */
const ProcessingRequestBody = v.object({
  source: v.picklist(inboundSources),
  event_id: v.pipe(v.string(), v.minLength(1)),
});

export const inboundMessageCodec = messageCodec(ProcessingRequestBody, {
  toBody: (request: ProcessingRequest) => ({ source: request.source, event_id: request.eventId }),
  fromBody: (body): ProcessingRequest => ({ source: body.source, eventId: body.event_id }),
});
