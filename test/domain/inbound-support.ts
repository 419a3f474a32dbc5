import { createHmac, randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import type { InboundCall } from '../../shared/domain/inbound/model.js';

const stripe = new Stripe('sk_test_unused');

export const gatewayASecret = 'gateway-a-test-secret';
export const gatewayBSecret = 'whsec_gateway_b_test_secret';
export const messagingSecret = 'messaging-app-test-secret';

export const hexHmac = (secret: string, body: string | Buffer) =>
  createHmac('sha256', secret).update(body).digest('hex');

/** Gateway B's header, made by the gateway's own library. */
export const gatewayBHeader = (body: string, nowMs: number, secret = gatewayBSecret) =>
  stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret,
    timestamp: Math.floor(nowMs / 1000),
  });

export function inboundCall(
  body: string | Buffer,
  headers: Record<string, string>,
  receivedAt: number,
  endpoint = 'test',
): InboundCall {
  return {
    endpoint,
    headers,
    query: {},
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    requestId: randomUUID(),
    sourceIp: '203.0.113.7',
    receivedAt,
  };
}

/** A gateway B event as the gateway sends it (created: Unix seconds). */
export function gatewayBEvent(
  type: string,
  object: Record<string, unknown>,
  created = Math.floor(Date.now() / 1000),
  id = `evt_${randomUUID().replace(/-/g, '')}`,
) {
  return { id, object: 'event', type, created, livemode: false, data: { object } };
}

/** A gateway A payment event: amounts in paise, the account in notes. */
export function gatewayAPaymentEvent(event: string, payment: Record<string, unknown>) {
  return {
    entity: 'event',
    account_id: 'acc_gateway_merchant',
    event,
    contains: ['payment'],
    payload: { payment: { entity: { entity: 'payment', ...payment } } },
    created_at: Math.floor(Date.now() / 1000),
  };
}

/**
 * A messaging notification with one inbound text message, sent a minute before `at` (Unix
 * seconds), and one delivery status at `at`.
 */
export function messagingNotification(
  messageId: string,
  statusOf: string,
  at = Math.floor(Date.now() / 1000),
) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
              contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
              messages: [
                {
                  from: '16505551234',
                  id: messageId,
                  timestamp: String(at - 60),
                  type: 'text',
                  text: { body: 'Does it come in another colour?' },
                },
              ],
              statuses: [
                {
                  id: statusOf,
                  status: 'delivered',
                  timestamp: String(at),
                  recipient_id: '16505551234',
                },
              ],
            },
          },
        ],
      },
    ],
  };
}
