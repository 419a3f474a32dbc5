import type { Acknowledgement } from '../../domain/inbound/model.js';

/** What a receiver answers for an accepted or duplicate event (docs/receivers.md). */
export const acknowledgementView = (acknowledgement: Acknowledgement) => ({
  received: acknowledgement.received,
  event_id: acknowledgement.eventId,
  duplicate: acknowledgement.duplicate,
  route: acknowledgement.route,
});
