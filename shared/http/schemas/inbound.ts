import * as v from 'valibot';
import { maxChallengeLength } from '../../domain/inbound/receive-event.js';
import type { ReceiverRequest } from '../operation.js';

/**
 * What the gateways and the messaging platform send the receivers, for the OpenAPI document. No
 * receiver validates with these: a receiver reads the exact bytes its sender signed
 * (shared/domain/inbound/sources.ts), and what it requires of them is what these state — the
 * rest of an event is the sender's own and is kept as sent. Only the route table reads them
 * (through each receiver's `answer`), so no bundle keeps them (see ./fields.ts).
 */

const text = (max: number, description: string) =>
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.string(),
    /* @__PURE__ */ v.nonEmpty(),
    /* @__PURE__ */ v.maxLength(max),
    /* @__PURE__ */ v.description(description),
  );

const senderObject = (description: string) =>
  /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.looseObject({}),
    /* @__PURE__ */ v.description(description),
  );

/** A gateway A (Razorpay-style) event: the dedupe key is the SHA-256 of the signed bytes. */
const GatewayAEvent = /* @__PURE__ */ v.looseObject({
  event: /* @__PURE__ */ text(
    200,
    'The event type, e.g. `payment.captured`; `subscription.*` go to subscription handling',
  ),
  payload: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ senderObject('The entities of the event (`payment.entity`, …)'),
  ),
});

/** A gateway B (Stripe-style) event: deduplicated on its `id`. */
const GatewayBEvent = /* @__PURE__ */ v.looseObject({
  id: /* @__PURE__ */ text(255, 'The event id: a repeat of it is answered as a duplicate'),
  type: /* @__PURE__ */ text(
    200,
    'The event type; `customer.subscription.*`, `invoice.*` and `checkout.session.completed` go to subscription handling, every other type to general handling',
  ),
  data: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ senderObject('The object the event is about, as `data.object`'),
  ),
});

/** A messaging platform notification: deduplicated on the SHA-256 of the signed bytes. */
const MessagingNotification = /* @__PURE__ */ v.looseObject({
  object: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ text(200, 'What the notification is about, e.g. `whatsapp_business_account`'),
  ),
  entry: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ v.array(
        /* @__PURE__ */ senderObject('Changes of one account: messages and delivery statuses'),
      ),
      /* @__PURE__ */ v.maxLength(1000),
    ),
  ),
});

/** The messaging platform's subscription handshake (`GET` on the callback URL). */
const MessagingHandshakeQuery = /* @__PURE__ */ v.object({
  'hub.mode': /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.picklist(['subscribe']),
    /* @__PURE__ */ v.description('Always `subscribe`; anything else is refused with 403'),
  ),
  'hub.verify_token': /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.string(),
    /* @__PURE__ */ v.maxLength(1000),
    /* @__PURE__ */ v.description(
      'The verify token configured on the platform (MESSAGING_VERIFY_TOKEN, compared in constant time); another is refused with 403',
    ),
  ),
  'hub.challenge': /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.string(),
    /* @__PURE__ */ v.nonEmpty(),
    /* @__PURE__ */ v.maxLength(maxChallengeLength),
    /* @__PURE__ */ v.description('Echoed back as the text/plain answer'),
  ),
});

/** What each gateway A receiver is sent (three operations, one sender). */
export const gatewayARequest: ReceiverRequest = {
  body: GatewayAEvent,
  headers: {
    'X-Gateway-A-Event-Id':
      "The gateway's id of the event: kept on the call's audit record only, since the signature does not cover it (the signed bytes are the dedupe key)",
    'X-Razorpay-Event-Id':
      "The gateway's own name for X-Gateway-A-Event-Id, read when that is absent",
  },
};

export const gatewayBRequest: ReceiverRequest = { body: GatewayBEvent };

export const messagingNotificationRequest: ReceiverRequest = { body: MessagingNotification };

export const messagingHandshakeRequest: ReceiverRequest = { query: MessagingHandshakeQuery };
