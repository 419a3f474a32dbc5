import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.js';
import { Refusal } from '../domain/errors.js';
import type { EventType } from '../domain/event-types.js';
import type { DisabledReason, EndpointStatus, WebhookEndpoint } from '../domain/webhooks/model.js';
import type { EndpointRepository } from '../domain/webhooks/ports.js';
import {
  deleteIf,
  getItem,
  iso,
  isTransactionConflict,
  queryAll,
  queryWorkShards,
  type TransactionOutcome,
  transactWrite,
  updateIf,
  workBefore,
} from './dynamodb.js';
import { keys, resumingEndpointPartitions } from './keys.js';
import { pageOfSorted } from './page-cursor.js';

interface EndpointItem {
  id: string;
  account_id: string;
  url: string;
  events: EventType[];
  description?: string;
  /** Absent on endpoints stored before endpoints could be disabled: those are enabled. */
  status?: EndpointStatus;
  disabled_reason?: DisabledReason;
  disabled_at?: number;
  failing_since?: number;
  rate_limit?: number;
  secret: string;
  previous_secret?: string;
  previous_secret_expires_at?: number;
  created_at: string;
  updated_at?: string;
}

export const endpointFromItem = (item: Record<string, unknown>): WebhookEndpoint => {
  const stored = item as unknown as EndpointItem;
  return {
    id: stored.id,
    accountId: stored.account_id,
    url: stored.url,
    events: stored.events,
    description: stored.description ?? '',
    status: stored.status ?? 'enabled',
    disabledReason: stored.disabled_reason,
    disabledAt: stored.disabled_at,
    failingSince: stored.failing_since,
    rateLimit: stored.rate_limit,
    secret: stored.secret,
    previousSecret: stored.previous_secret,
    previousSecretExpiresAt: stored.previous_secret_expires_at,
    createdAt: stored.created_at,
    updatedAt: stored.updated_at ?? stored.created_at,
  };
};

/** The endpoint is enabled: stored as such, or stored before endpoints had a status. */
const isEnabled = '(attribute_not_exists(#status) OR #status = :enabled)';

/**
 * A transaction that moves the account's endpoint count. `transactWrite` retries a
 * TransactionConflict (another transaction on the count item at that moment) with jitter; one
 * that still loses after its retries met a burst of simultaneous changes to one account's
 * endpoints — the client's to retry (409), not a failure of ours (500).
 */
async function writeWithCount(input: TransactWriteCommandInput): Promise<TransactionOutcome> {
  try {
    return await transactWrite(input);
  } catch (error) {
    if (isTransactionConflict(error)) throw new Refusal('endpointsBusy', { cause: error });
    throw error;
  }
}

/**
 * Endpoints live in their account's partition (`ACCOUNT#id` / `ENDPOINT#id`): listing them for a
 * fan-out is one Query. The signing secret is stored as is — it is an HMAC key and must stay
 * readable to sign (the table is encrypted at rest).
 *
 * The account's endpoint count (`ACCOUNT#id` / `ENDPOINT_COUNT`) moves in the same transaction as
 * each put and delete: the cap is a condition on that item, so two registrations racing for the
 * last slot cannot both pass (a read-then-write count could).
 */
/** An endpoint's place in its account's list: creation time, then id (unique). */
const listPosition = (endpoint: WebhookEndpoint) => `${endpoint.createdAt}#${endpoint.id}`;

export const dynamoEndpointRepository: EndpointRepository = {
  async create(endpoint, limit) {
    const item: EndpointItem & { kind: string } = {
      kind: 'webhook_endpoint',
      id: endpoint.id,
      account_id: endpoint.accountId,
      url: endpoint.url,
      events: endpoint.events,
      description: endpoint.description,
      status: endpoint.status,
      ...(endpoint.rateLimit === undefined ? {} : { rate_limit: endpoint.rateLimit }),
      secret: endpoint.secret,
      created_at: endpoint.createdAt,
      updated_at: endpoint.updatedAt,
    };
    const outcome = await writeWithCount({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: keys.webhookEndpointCount(endpoint.accountId),
            UpdateExpression: 'SET endpoint_count = if_not_exists(endpoint_count, :zero) + :one',
            ConditionExpression: 'attribute_not_exists(endpoint_count) OR endpoint_count < :limit',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limit },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.webhookEndpoint(endpoint.accountId, endpoint.id), ...item },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    if (outcome.ok) return true;
    if (outcome.failedIndex === 0) return false;
    throw new Error(`Webhook endpoint id ${endpoint.id} is taken`);
  },

  async listForAccount(accountId) {
    const { pk, skPrefix } = keys.accountEndpoints(accountId);
    const items = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    });
    return items.map(endpointFromItem);
  },

  async pageForAccount(accountId, matches, request) {
    const newestFirst = (await dynamoEndpointRepository.listForAccount(accountId))
      .filter(matches)
      .sort((a, b) => listPosition(b).localeCompare(listPosition(a)));
    return pageOfSorted(newestFirst, request, listPosition, true);
  },

  async get(accountId, endpointId) {
    const item = await getItem(keys.webhookEndpoint(accountId, endpointId), { consistent: false });
    return item === undefined ? undefined : endpointFromItem(item);
  },

  async delete(accountId, endpointId) {
    const outcome = await writeWithCount({
      TransactItems: [
        {
          Delete: {
            TableName: tableName(),
            Key: keys.webhookEndpoint(accountId, endpointId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: keys.webhookEndpointCount(accountId),
            UpdateExpression: 'SET endpoint_count = endpoint_count - :one',
            ConditionExpression: 'endpoint_count > :zero',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
          },
        },
      ],
    });
    if (outcome.ok) return true;
    if (outcome.failedIndex === 0) return false;
    // The endpoint exists but the count is 0 or absent: it was registered before endpoints were
    // counted, so there is no slot to give back — delete it alone rather than refuse.
    const alone = await deleteIf({
      Key: keys.webhookEndpoint(accountId, endpointId),
      ReturnValues: 'ALL_OLD',
    });
    return alone.ok && alone.attributes !== undefined;
  },

  async update(accountId, endpointId, change, expectedStatus) {
    const set = ['updated_at = :updated'];
    const remove: string[] = [];
    const values: Record<string, unknown> = { ':updated': change.updatedAt };
    if (change.url !== undefined) {
      set.push('#url = :url');
      values[':url'] = change.url;
    }
    if (change.events !== undefined) {
      set.push('events = :events');
      values[':events'] = change.events;
    }
    if (change.description !== undefined) {
      set.push('description = :description');
      values[':description'] = change.description;
    }
    if (change.rateLimit === null) remove.push('rate_limit');
    else if (change.rateLimit !== undefined) {
      set.push('rate_limit = :rateLimit');
      values[':rateLimit'] = change.rateLimit;
    }
    if (change.status?.to === 'enabled') {
      // Marked for the sweeper until every delivery paused while it was disabled is sent again.
      set.push('#status = :enabled', 'gsi2pk = :resuming', 'gsi2sk = :updated');
      remove.push('disabled_reason', 'disabled_at');
      values[':enabled'] = 'enabled';
      values[':resuming'] = keys.resumingEndpoints(endpointId).gsi2pk;
    } else if (change.status?.to === 'disabled') {
      set.push('#status = :disabled', 'disabled_reason = :reason', 'disabled_at = :at');
      remove.push('gsi2pk', 'gsi2sk');
      values[':disabled'] = 'disabled';
      values[':reason'] = change.status.reason;
      values[':at'] = change.status.at;
    }
    if (change.resetFailing) remove.push('failing_since');
    const result = await updateIf({
      Key: keys.webhookEndpoint(accountId, endpointId),
      UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ConditionExpression:
        expectedStatus === 'enabled'
          ? `attribute_exists(pk) AND ${isEnabled}`
          : 'attribute_exists(pk) AND #status = :expected',
      ExpressionAttributeNames: { '#status': 'status', ...(change.url ? { '#url': 'url' } : {}) },
      ExpressionAttributeValues: {
        ...values,
        ...(expectedStatus === 'enabled' ? { ':enabled': 'enabled' } : { ':expected': 'disabled' }),
      },
      ReturnValues: 'ALL_NEW',
    });
    if (result.ok)
      return { outcome: 'updated', endpoint: endpointFromItem(result.attributes ?? {}) };
    const exists = await dynamoEndpointRepository.get(accountId, endpointId);
    return exists === undefined ? { outcome: 'not_found' } : { outcome: 'status_changed' };
  },

  async rotateSecret(accountId, endpointId, secret, previousExpiresAt) {
    const result = await updateIf({
      Key: keys.webhookEndpoint(accountId, endpointId),
      UpdateExpression:
        'SET previous_secret = secret, previous_secret_expires_at = :expires, secret = :secret',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':secret': secret, ':expires': previousExpiresAt },
      ReturnValues: 'ALL_NEW',
    });
    return result.ok ? endpointFromItem(result.attributes ?? {}) : undefined;
  },

  async markFailing(accountId, endpointId, since) {
    await updateIf({
      Key: keys.webhookEndpoint(accountId, endpointId),
      UpdateExpression: 'SET failing_since = :since',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(failing_since)',
      ExpressionAttributeValues: { ':since': since },
    });
  },

  async clearFailing(accountId, endpointId, since) {
    await updateIf({
      Key: keys.webhookEndpoint(accountId, endpointId),
      UpdateExpression: 'REMOVE failing_since',
      ConditionExpression: 'failing_since = :since',
      ExpressionAttributeValues: { ':since': since },
    });
  },

  async disableForFailing(accountId, endpointId, since, at) {
    // Conditional on the very streak that was judged: a success that cleared it meanwhile, or an
    // owner who disabled or re-enabled the endpoint, leaves it as it is — and the one call that
    // does disable it is the one that emails the owner.
    const result = await updateIf({
      Key: keys.webhookEndpoint(accountId, endpointId),
      UpdateExpression:
        'SET #status = :disabled, disabled_reason = :failing, disabled_at = :at REMOVE gsi2pk, gsi2sk',
      ConditionExpression: `failing_since = :since AND ${isEnabled}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':disabled': 'disabled',
        ':failing': 'failing',
        ':at': at,
        ':since': since,
        ':enabled': 'enabled',
      },
    });
    return result.ok;
  },

  async listResuming(before, limit) {
    const marks = await queryWorkShards(
      resumingEndpointPartitions(),
      limit,
      workBefore(iso(before)),
    );
    return marks.map((item) => ({
      endpoint: endpointFromItem(item),
      enabledAt: String(item.gsi2sk),
    }));
  },

  async finishResuming(accountId, endpointId, enabledAt) {
    await updateIf({
      Key: keys.webhookEndpoint(accountId, endpointId),
      UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
      ConditionExpression: 'gsi2sk = :enabledAt',
      ExpressionAttributeValues: { ':enabledAt': enabledAt },
    });
  },
};
