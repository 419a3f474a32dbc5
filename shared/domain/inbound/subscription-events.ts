import { isObject, type JsonObject } from './json.js';
import type { InboundSource } from './model.js';
import type { SubscriptionUpdate } from './ports.js';

export type SubscriptionMapping =
  | { kind: 'update'; update: SubscriptionUpdate }
  | { kind: 'unusable'; reason: string };

const object = (value: unknown): JsonObject => (isObject(value) ? value : {});
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const seconds = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
const isoOf = (epochSeconds: number | undefined): string | undefined =>
  epochSeconds === undefined ? undefined : new Date(epochSeconds * 1000).toISOString();

/** The id of a field that gateway B sends either as an id string or as an expanded object. */
const idOf = (value: unknown): string | undefined => text(value) ?? text(object(value).id);

function withAccount(
  accountId: string | undefined,
  subscriptionId: string | undefined,
  build: (accountId: string, subscriptionId: string) => SubscriptionUpdate,
): SubscriptionMapping {
  if (accountId === undefined) return { kind: 'unusable', reason: 'no account_id in the metadata' };
  if (subscriptionId === undefined) return { kind: 'unusable', reason: 'no subscription id' };
  return { kind: 'update', update: build(accountId, subscriptionId) };
}

/**
 * Gateway B's subscription-handling events (`customer.subscription.*`, `invoice.*`,
 * `checkout.session.completed`) as a change to the account's subscription record.
 */
function fromGatewayB(eventId: string, type: string, body: JsonObject): SubscriptionMapping {
  const source = object(object(body.data).object);
  const eventCreatedAt = seconds(body.created) ?? 0;
  const base = { source: 'gateway-b' as InboundSource, eventId, eventCreatedAt };

  if (type.startsWith('customer.subscription.')) {
    const firstItem = object((object(source.items).data as unknown[] | undefined)?.[0]);
    // Newer API versions moved the period onto the subscription's items.
    const periodEnd = seconds(source.current_period_end) ?? seconds(firstItem.current_period_end);
    const status = type === 'customer.subscription.deleted' ? 'canceled' : text(source.status);
    return withAccount(
      text(object(source.metadata).account_id),
      text(source.id),
      (accountId, subscriptionId) => ({
        ...base,
        accountId,
        subscriptionId,
        state: {
          status: status ?? 'unknown',
          plan: idOf(firstItem.price) ?? idOf(source.plan),
          currentPeriodEnd: isoOf(periodEnd),
        },
      }),
    );
  }

  if (type.startsWith('invoice.')) {
    const parentDetails = object(object(source.parent).subscription_details);
    const legacyDetails = object(source.subscription_details);
    const accountId =
      text(object(source.metadata).account_id) ??
      text(object(parentDetails.metadata).account_id) ??
      text(object(legacyDetails.metadata).account_id);
    const subscriptionId = idOf(source.subscription) ?? idOf(parentDetails.subscription);
    const invoiceId = text(source.id);
    if (invoiceId === undefined) return { kind: 'unusable', reason: 'no invoice id' };
    return withAccount(accountId, subscriptionId, (account, subscription) => ({
      ...base,
      accountId: account,
      subscriptionId: subscription,
      latestInvoice: {
        id: invoiceId,
        status: text(source.status) ?? type.slice('invoice.'.length),
      },
    }));
  }

  // checkout.session.completed: only subscription checkouts create a subscription.
  if (text(source.mode) !== 'subscription') {
    return { kind: 'unusable', reason: 'not a subscription checkout' };
  }
  const sessionId = text(source.id);
  if (sessionId === undefined) return { kind: 'unusable', reason: 'no checkout session id' };
  const accountId = text(object(source.metadata).account_id) ?? text(source.client_reference_id);
  return withAccount(accountId, idOf(source.subscription), (account, subscriptionId) => ({
    ...base,
    accountId: account,
    subscriptionId,
    checkout: {
      sessionId,
      initialStatus: text(source.payment_status) === 'paid' ? 'active' : 'incomplete',
    },
  }));
}

/** Gateway A's `subscription.*` events carry the whole subscription in `payload.subscription.entity`. */
function fromGatewayA(eventId: string, type: string, body: JsonObject): SubscriptionMapping {
  const entity = object(object(object(body.payload).subscription).entity);
  return withAccount(
    text(object(entity.notes).account_id),
    text(entity.id),
    (accountId, subscriptionId) => ({
      source: 'gateway-a',
      eventId,
      eventCreatedAt: seconds(body.created_at) ?? 0,
      accountId,
      subscriptionId,
      state: {
        status: text(entity.status) ?? type.slice('subscription.'.length),
        plan: text(entity.plan_id),
        currentPeriodEnd: isoOf(seconds(entity.current_end)),
      },
    }),
  );
}

/** The subscription change of an event routed to subscription handling (a pure mapping). */
export function subscriptionUpdateOf(
  source: InboundSource,
  eventId: string,
  type: string,
  body: JsonObject,
): SubscriptionMapping {
  if (source === 'gateway-b') return fromGatewayB(eventId, type, body);
  if (source === 'gateway-a') return fromGatewayA(eventId, type, body);
  return { kind: 'unusable', reason: 'the source has no subscriptions' };
}
