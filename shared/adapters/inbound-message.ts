import {
  type InboundSource,
  inboundSources,
  type ProcessingRequest,
} from '../domain/inbound/model.js';

/** The inbound queue's message body: which stored event to process (the body stays in the table). */
export const encodeProcessingRequest = (request: ProcessingRequest): string =>
  JSON.stringify({ source: request.source, event_id: request.eventId });

/** Undefined for a body this service did not write (it is dropped, not retried forever). */
export function decodeProcessingRequest(body: string): ProcessingRequest | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { source, event_id: eventId } = parsed as { source?: unknown; event_id?: unknown };
    if (!inboundSources.includes(source as InboundSource)) return undefined;
    if (typeof eventId !== 'string' || eventId === '') return undefined;
    return { source: source as InboundSource, eventId };
  } catch {
    return undefined;
  }
}
