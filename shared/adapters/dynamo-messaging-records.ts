import { tableName } from '../config.js';
import { epochSeconds, systemClock } from '../domain/clock.js';
import type { MessagingRecords } from '../domain/inbound/ports.js';
import { dynamo } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/** Messages and statuses are kept 90 days, like the audit trail. */
const retentionSeconds = 90 * 24 * 60 * 60;

/** BatchWriteItem takes at most 25 items; unprocessed ones are sent again a few times. */
const batchSize = 25;
const rounds = 4;

async function writeAll(records: (Record<string, unknown> & { pk: string; sk: string })[]) {
  // BatchWriteItem refuses a batch naming one key twice (a status repeated in one notification).
  const items = [...new Map(records.map((item) => [`${item.pk}\n${item.sk}`, item])).values()];
  for (let start = 0; start < items.length; start += batchSize) {
    let pending = items.slice(start, start + batchSize).map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; pending.length > 0; round++) {
      if (round === rounds)
        throw new Error(`${pending.length} messaging record(s) were not written`);
      const { UnprocessedItems } = await dynamo().batchWrite({
        RequestItems: { [tableName()]: pending },
      });
      pending = (UnprocessedItems?.[tableName()] ?? []) as typeof pending;
      if (pending.length > 0) await new Promise((resume) => setTimeout(resume, 50 * 2 ** round));
    }
  }
}

/**
 * Puts keyed by the platform's own ids: the same message or status written twice (a retried
 * notification, a retried worker) is the same item, so the write is idempotent.
 */
export const dynamoMessagingRecords: MessagingRecords = {
  async save(messages, statuses) {
    const expiresAt = epochSeconds(systemClock.now()) + retentionSeconds;
    await writeAll([
      ...messages.map((message) => ({
        ...keys.messagingMessage(message.id),
        kind: 'messaging_message',
        message_id: message.id,
        from: message.from,
        type: message.type,
        text: message.text,
        sent_at: new Date(message.sentAt * 1000).toISOString(),
        phone_number_id: message.phoneNumberId,
        [ttlAttribute]: expiresAt,
      })),
      ...statuses.map((status) => ({
        ...keys.messagingStatus(status.messageId, status.status),
        kind: 'messaging_status',
        message_id: status.messageId,
        status: status.status,
        recipient_id: status.recipientId,
        at: new Date(status.at * 1000).toISOString(),
        error_title: status.errorTitle,
        [ttlAttribute]: expiresAt,
      })),
    ]);
  },
};

/** A stored inbound message or status (operators and tests). */
export async function findMessagingRecord(
  key: ReturnType<typeof keys.messagingMessage>,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamo().get({ TableName: tableName(), Key: key, ConsistentRead: true });
  return Item;
}
