import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/** SQS's limit of entries per SendMessageBatch. */
const batchSize = 10;

/**
 * Sends `entries` with SendMessageBatch in chunks of 10, in parallel (each entry's Id is its
 * index). Entries SQS reports as failed are sent once more; if some still fail, throws "SQS
 * refused N <what> message(s)" — the callers' work stays due in the table, and their sweepers
 * send it again.
 */
export async function sendMessageBatches(
  client: SQSClient,
  queueUrl: string,
  entries: Omit<SendMessageBatchRequestEntry, 'Id'>[],
  what: string,
): Promise<void> {
  const identified = entries.map((entry, index) => ({ ...entry, Id: String(index) }));
  const batches: SendMessageBatchRequestEntry[][] = [];
  for (let start = 0; start < identified.length; start += batchSize) {
    batches.push(identified.slice(start, start + batchSize));
  }
  const refused = await Promise.all(batches.map((batch) => sendBatch(client, queueUrl, batch)));
  const count = refused.reduce((sum, n) => sum + n, 0);
  if (count > 0) throw new Error(`SQS refused ${count} ${what} message(s)`);
}

/** One SendMessageBatch, its failed entries sent once more; answers how many still failed. */
async function sendBatch(
  client: SQSClient,
  queueUrl: string,
  entries: SendMessageBatchRequestEntry[],
): Promise<number> {
  let pending = entries;
  for (let round = 0; round < 2 && pending.length > 0; round++) {
    const { Failed } = await client.send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
    );
    const failedIds = new Set((Failed ?? []).map((failure) => failure.Id));
    pending = pending.filter((entry) => failedIds.has(entry.Id));
  }
  return pending.length;
}
