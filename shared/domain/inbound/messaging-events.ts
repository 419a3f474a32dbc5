import { isObject, type JsonObject } from './json.js';
import type { MessagingMessage, MessagingStatus } from './ports.js';

/** Longest message text kept (the platform allows 4,096 characters). */
const maxTextLength = 4096;

const list = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isObject) : []);
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const epochSeconds = (value: unknown): number => {
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed > 0 ? Math.floor(parsed) : 0;
};

/**
 * The inbound messages and delivery statuses of a notification
 * (`entry[].changes[].value.messages[]` and `.statuses[]`); anything else in it is ignored.
 */
export function messagingContentOf(body: JsonObject): {
  messages: MessagingMessage[];
  statuses: MessagingStatus[];
} {
  const messages: MessagingMessage[] = [];
  const statuses: MessagingStatus[] = [];
  for (const entry of list(body.entry)) {
    for (const change of list(entry.changes)) {
      const value = isObject(change.value) ? change.value : {};
      const phoneNumberId = text(
        isObject(value.metadata) ? value.metadata.phone_number_id : undefined,
      );
      for (const message of list(value.messages)) {
        const id = text(message.id);
        const from = text(message.from);
        if (id === undefined || from === undefined) continue;
        const body = isObject(message.text) ? text(message.text.body) : undefined;
        messages.push({
          id,
          from,
          type: text(message.type) ?? 'unknown',
          text: body?.slice(0, maxTextLength),
          sentAt: epochSeconds(message.timestamp),
          phoneNumberId,
        });
      }
      for (const status of list(value.statuses)) {
        const messageId = text(status.id);
        const state = text(status.status);
        if (messageId === undefined || state === undefined) continue;
        const [firstError] = list(status.errors);
        statuses.push({
          messageId,
          status: state,
          recipientId: text(status.recipient_id),
          at: epochSeconds(status.timestamp),
          errorTitle: text(firstError?.title),
        });
      }
    }
  }
  return { messages, statuses };
}
