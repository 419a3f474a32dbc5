import { systemClock } from '../domain/clock.js';
import type { SubscriptionStore, SubscriptionUpdate } from '../domain/inbound/ports.js';
import { getItem, updateIf } from './dynamodb.js';
import { keys } from './keys.js';

/** The subscription record as stored (one item per account and gateway subscription). */
export interface SubscriptionRecord {
  account_id: string;
  subscription_id: string;
  source: string;
  status?: string;
  plan?: string;
  current_period_end?: string;
  latest_invoice_id?: string;
  latest_invoice_status?: string;
  checkout_session_id?: string;
  updated_at: string;
}

/**
 * Builds one UpdateItem per event. Gateways do not deliver in order, so each kind of fact
 * (lifecycle state, latest invoice) carries the creation time of the event that set it and is
 * only overwritten by an event at least as recent — in the write's condition, not by reading first.
 */
function updateOf(update: SubscriptionUpdate) {
  const sets = [
    'account_id = :account',
    'subscription_id = :subscription',
    '#source = :source',
    'updated_at = :now',
  ];
  const names: Record<string, string> = { '#source': 'source' };
  const values: Record<string, unknown> = {
    ':account': update.accountId,
    ':subscription': update.subscriptionId,
    ':source': update.source,
    ':now': new Date(systemClock.now()).toISOString(),
  };
  let condition: string | undefined;
  /** `<fact>_event_at` / `<fact>_event_id`: which event last set this fact, and when. */
  const guardBy = (fact: string) => {
    sets.push(`${fact}_event_at = :eventAt`, `${fact}_event_id = :eventId`);
    values[':eventAt'] = update.eventCreatedAt;
    values[':eventId'] = update.eventId;
    condition = `attribute_not_exists(${fact}_event_at) OR ${fact}_event_at <= :eventAt`;
  };
  if (update.state !== undefined) {
    names['#status'] = 'status';
    sets.push('#status = :status');
    values[':status'] = update.state.status;
    if (update.state.plan !== undefined) {
      sets.push('#plan = :plan');
      names['#plan'] = 'plan';
      values[':plan'] = update.state.plan;
    }
    if (update.state.currentPeriodEnd !== undefined) {
      sets.push('current_period_end = :periodEnd');
      values[':periodEnd'] = update.state.currentPeriodEnd;
    }
    guardBy('state');
  } else if (update.latestInvoice !== undefined) {
    sets.push('latest_invoice_id = :invoice', 'latest_invoice_status = :invoiceStatus');
    values[':invoice'] = update.latestInvoice.id;
    values[':invoiceStatus'] = update.latestInvoice.status;
    guardBy('invoice');
  } else if (update.checkout !== undefined) {
    // The checkout only links the subscription to the account; the lifecycle events own status.
    names['#status'] = 'status';
    sets.push('checkout_session_id = :session', '#status = if_not_exists(#status, :initial)');
    values[':session'] = update.checkout.sessionId;
    values[':initial'] = update.checkout.initialStatus;
  }
  return {
    Key: keys.subscription(update.accountId, update.subscriptionId),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(condition === undefined ? {} : { ConditionExpression: condition }),
  };
}

export const dynamoSubscriptionStore: SubscriptionStore = {
  async apply(update) {
    const result = await updateIf(updateOf(update));
    return result.ok;
  },
};

/** An account's subscription record, if any. */
export async function findSubscription(
  accountId: string,
  subscriptionId: string,
): Promise<SubscriptionRecord | undefined> {
  return (await getItem(keys.subscription(accountId, subscriptionId))) as
    | SubscriptionRecord
    | undefined;
}
