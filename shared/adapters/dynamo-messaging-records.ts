import { epochSeconds, systemClock } from '../domain/clock.js';
import type { MessagingRecords } from '../domain/inbound/ports.js';
import { getItem, putItems } from './dynamodb.js';
import { keys } from './keys.js';
import { ttlAttribute } from './table-definition.js';

/** Messages and statuses are kept 90 days, like the audit trail. */
const retentionSeconds = 90 * 24 * 60 * 60;

async function writeAll(records: (Record<string, unknown> & { pk: string; sk: string })[]) {
  // BatchWriteItem refuses a batch naming one key twice (a status repeated in one notification).
  await putItems([...new Map(records.map((item) => [`${item.pk}\n${item.sk}`, item])).values()]);
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
  return getItem(key);
}
