/**
 * The outbound event types a client can subscribe to (docs/webhooks.md, "Event types and their
 * data").
 */
export const eventTypes = [
  'order.created',
  'order.updated',
  'order.cancelled',
  'order.completed',
  'delivery.assigned',
  'delivery.picked_up',
  'delivery.in_transit',
  'delivery.completed',
  'payment.successful',
  'payment.failed',
  'payment.refunded',
] as const;

export type EventType = (typeof eventTypes)[number];
